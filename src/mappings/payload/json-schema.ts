import { BoundedMemo } from '../../utils/bounded-memo.js';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import { HeraldError } from '../../errors.js';

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

interface AjvModules {
  Ajv: typeof Ajv;
  addFormats: (ajv: Ajv) => Ajv;
  /** ajv's own validator of the draft-07 meta-schema, generated ahead (bin/draft-07-validator.mjs) */
  draft07: ValidateFunction;
}

let modules: Promise<AjvModules> | undefined;

/**
 * imported with the first schema, not at start: a gateway whose mappings have no schema never
 * loads ajv (the build bundles it into a chunk of its own, read only then)
 */
function loadAjv(): Promise<AjvModules> {
  // both are CommonJS whose module.exports is also their default export
  modules ??= Promise.all([import('ajv'), import('ajv-formats'), import('./draft-07-meta-validator.js')]).then(([ajv, formats, draft07]) => ({
    Ajv: ajv.default as unknown as typeof Ajv,
    addFormats: formats.default as unknown as AjvModules['addFormats'],
    draft07: draft07.default as ValidateFunction,
  }));
  return modules;
}

/**
 * `validateSchema: false`: a schema is checked against the meta-schema by checkSchema below, with
 * the validator ajv would compile for it at start (the same code, generated ahead), not by ajv.
 */
function newAjv({ Ajv, addFormats }: AjvModules): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: false, validateSchema: false });
  addFormats(ajv);
  return ajv;
}

/** draft-07's `$schema`, with or without its empty fragment: what ajv's Ajv knows by default */
const DRAFT_07 = new Set(['http://json-schema.org/draft-07/schema', 'http://json-schema.org/draft-07/schema#']);

/**
 * What ajv's compile does first with validateSchema on, with the same error: the draft-07
 * meta-schema through the generated validator; any other `$schema` through ajv itself (which
 * knows no other draft, and says so).
 */
function checkSchema(ajv: Ajv, draft07: ValidateFunction, schema: Record<string, unknown>): void {
  if (schema.$schema !== undefined && !DRAFT_07.has(schema.$schema as string)) {
    ajv.validateSchema(schema, true);
    return;
  }
  if (!draft07(schema)) throw new Error(`schema is invalid: ${ajv.errorsText(draft07.errors)}`);
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
const compiled = new BoundedMemo<string, ValidateFunction>(2_000);

async function compileOnce(schema: Record<string, unknown>): Promise<ValidateFunction> {
  const ajvModules = await loadAjv();
  return compiled.get(JSON.stringify(schema), () => {
    shared ??= newAjv(ajvModules);
    // two mappings may reuse one `$id` with different schemas (copied files): the second gets an instance of its own
    const ajv = typeof schema.$id === 'string' && shared.getSchema(schema.$id) ? newAjv(ajvModules) : shared;
    checkSchema(ajv, ajvModules.draft07, schema);
    return ajv.compile(schema);
  });
}

/** Compiles a mapping's JSON Schema; an invalid schema throws (the caller names the mapping). */
export async function compilePayloadSchema(schema: Record<string, unknown>): Promise<PayloadSchema> {
  const validate = await compileOnce(schema);
  return {
    check(payload) {
      if (validate(payload)) return;
      const faults = (validate.errors ?? []).map(describe);
      const summary = faults.map((f) => `${f.path} ${f.message}`).join('; ');
      throw new HeraldError('HERALD_SCHEMA_MISMATCH', `payload does not match the mapping schema: ${summary}`, { details: faults });
    },
  };
}
