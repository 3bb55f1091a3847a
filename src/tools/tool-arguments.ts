import type { Ajv, ValidateFunction } from 'ajv';
import type { ToolSpec } from './tool-spec.js';

/** a call's arguments as the model wrote them: an object, or why not */
export type ParsedArguments = { ok: true; args: Record<string, unknown> } | { ok: false; error: string };

let ajv: Promise<Ajv> | undefined;
/** compiled per spec object: a server's new list makes new specs, and the old ones go with it */
const compiled = new WeakMap<ToolSpec, ValidateFunction | null>();

/**
 * Parses a call's arguments and checks them against the tool's JSON Schema before the server
 * sees them, so the model hears precisely what was wrong. A schema ajv cannot compile (a hostile
 * or newer-draft one) checks nothing here: the server still checks its own input. Synchronous
 * once the tool's schema is compiled (its first call compiles it): a call pays no promise for it.
 */
export function parseArguments(spec: ToolSpec, text: string): ParsedArguments | Promise<ParsedArguments> {
  let args: unknown;
  try {
    args = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    return { ok: false, error: 'the arguments are not valid JSON' };
  }
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return { ok: false, error: 'the arguments must be a JSON object' };
  const known = compiled.get(spec);
  if (known !== undefined) return checked(known, args as Record<string, unknown>);
  return validatorOf(spec).then((validate) => checked(validate, args as Record<string, unknown>));
}

function checked(validate: ValidateFunction | null, args: Record<string, unknown>): ParsedArguments {
  if (validate && !validate(args)) {
    const faults = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '(arguments)'} ${e.message ?? e.keyword}`);
    return { ok: false, error: `the arguments do not match the tool's schema: ${faults.join('; ')}` };
  }
  return { ok: true, args };
}

/**
 * Arguments made by herald's config rather than a model (a mapping's or a schedule's direct call)
 * checked against the tool's schema: each fault names its field as the config writes it
 * (`arguments.number: must be integer`, `arguments.text: is required`); empty when they fit.
 */
export async function argumentFaults(spec: ToolSpec, args: Record<string, unknown>): Promise<string[]> {
  const validate = await validatorOf(spec);
  if (!validate || validate(args)) return [];
  return (validate.errors ?? []).slice(0, 5).map((e) => {
    const missing = e.keyword === 'required' ? (e.params as { missingProperty?: string }).missingProperty : undefined;
    const path = ['arguments', ...e.instancePath.split('/').slice(1).map((step) => step.replace(/~1/g, '/').replace(/~0/g, '~')), ...(missing ? [missing] : [])].join('.');
    return `${path}: ${missing ? 'is required' : (e.message ?? e.keyword)}`;
  });
}

async function validatorOf(spec: ToolSpec): Promise<ValidateFunction | null> {
  const known = compiled.get(spec);
  if (known !== undefined) return known;
  let validate: ValidateFunction | null = null;
  try {
    const { $schema: _draft, ...schema } = spec.inputSchema;
    validate = (await loadAjv()).compile(schema);
  } catch {
    validate = null;
  }
  compiled.set(spec, validate);
  return validate;
}

function loadAjv(): Promise<Ajv> {
  ajv ??= Promise.all([import('ajv'), import('ajv-formats')]).then(([module, formats]) => {
    const Constructor = module.default as unknown as typeof Ajv;
    const instance = new Constructor({ allErrors: true, strict: false, validateSchema: false });
    (formats.default as unknown as (a: Ajv) => Ajv)(instance);
    return instance;
  });
  return ajv;
}
