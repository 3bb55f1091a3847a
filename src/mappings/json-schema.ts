import { createRequire } from 'node:module';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import { HeraldError } from '../errors.js';

// required with the first schema, not at start: a gateway whose mappings have no schema never loads ajv
const requireModule = createRequire(import.meta.url);

export interface SchemaFault {
  /** JSON Pointer into the payload ("" is the payload itself) */
  path: string;
  message: string;
}

/** A payload check compiled once at load; `check` throws 400 with ajv's paths and messages. */
export interface PayloadSchema {
  check(payload: unknown): void;
}

function describe(error: ErrorObject): SchemaFault {
  const extra = error.keyword === 'additionalProperties' ? ` (${(error.params as { additionalProperty: string }).additionalProperty})` : '';
  return { path: error.instancePath || '/', message: `${error.message ?? error.keyword}${extra}` };
}

function newAjv(): Ajv {
  const { Ajv } = requireModule('ajv') as typeof import('ajv');
  // ajv-formats is CommonJS with a default export
  const formats = requireModule('ajv-formats') as { default: (ajv: Ajv) => Ajv };
  const ajv = new Ajv({ allErrors: true, strict: false });
  formats.default(ajv);
  return ajv;
}

/**
 * One Ajv for every mapping: an instance with ajv-formats costs ~9 ms and ~180 KB, which a
 * thousand mappings paid a thousand times at start. Made on first use, so a config without
 * schemas never builds one.
 */
let shared: Ajv | undefined;

/**
 * Compiled validators by the schema's JSON text: mappings copied from one pattern carry the same
 * schema, and an ajv compile costs ~5 ms and ~100 KB of generated code, so each distinct schema is
 * compiled once (still at load: an invalid one is refused at start, naming its mapping). Emptied
 * past a bound, so reloads of ever-changing schemas do not accumulate validators forever.
 */
const compiled = new Map<string, ValidateFunction>();
const MAX_COMPILED = 2_000;

function compileOnce(schema: Record<string, unknown>): ValidateFunction {
  const text = JSON.stringify(schema);
  let validate = compiled.get(text);
  if (validate) return validate;
  shared ??= newAjv();
  // two mappings may reuse one `$id` with different schemas (copied files): the second gets an instance of its own
  const ajv = typeof schema.$id === 'string' && shared.getSchema(schema.$id) ? newAjv() : shared;
  validate = ajv.compile(schema);
  if (compiled.size >= MAX_COMPILED) compiled.clear();
  compiled.set(text, validate);
  return validate;
}

/** Compiles a mapping's JSON Schema; an invalid schema throws (the caller names the mapping). */
export function compilePayloadSchema(schema: Record<string, unknown>): PayloadSchema {
  const validate = compileOnce(schema);
  return {
    check(payload) {
      if (validate(payload)) return;
      const faults = (validate.errors ?? []).map(describe);
      const summary = faults.map((f) => `${f.path} ${f.message}`).join('; ');
      throw new HeraldError('HERALD_SCHEMA_MISMATCH', `payload does not match the mapping schema: ${summary}`, { details: faults });
    },
  };
}
