import fs from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import type { Ajv as AjvInstance } from 'ajv';
// @ts-expect-error a plain .mjs script without types
import { draft07ValidatorSource, TARGET } from '../../bin/draft-07-validator.mjs';
import { compilePayloadSchema } from '../../src/mappings/payload/json-schema.js';

const require = createRequire(import.meta.url);

/** what ajv itself says of a schema, meta-schema compiled on the spot (the options of json-schema.ts) */
function ajvsOwnFault(schema: Record<string, unknown>): string | undefined {
  const Ajv = require('ajv').default as new (options: object) => AjvInstance;
  const ajv = new Ajv({ allErrors: true, strict: false });
  require('ajv-formats').default(ajv);
  try {
    ajv.compile(schema);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

async function heraldsFault(schema: Record<string, unknown>): Promise<string | undefined> {
  try {
    await compilePayloadSchema(schema);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

describe('the draft-07 meta-schema validator generated ahead', () => {
  it('is what the installed ajv generates (node bin/draft-07-validator.mjs rewrites it)', () => {
    expect(fs.readFileSync(TARGET, 'utf8')).toBe(draft07ValidatorSource());
  });

  it('refuses and accepts schemas as ajv does, with the same message', async () => {
    const schemas: Record<string, unknown>[] = [
      { type: 'objekt' },
      { type: 'object', properties: { a: { type: 'string', minLength: -1 } }, required: 'a' },
      { type: ['string', 'string'] },
      { enum: [] },
      { $schema: 'http://json-schema.org/draft-07/schema#', type: 'nope' },
      { $schema: 'http://json-schema.org/draft-07/schema', items: 3 },
      { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' },
      { $schema: 7, type: 'object' },
      { type: 'object', required: ['a'], properties: { a: { type: 'string', format: 'uri', pattern: '^h' } }, additionalProperties: false },
      { $schema: 'http://json-schema.org/draft-07/schema#', $id: 'https://example.com/s', type: 'array', items: { $ref: '#/definitions/x' }, definitions: { x: { type: 'integer' } } },
    ];
    for (const schema of schemas) expect(await heraldsFault(schema), JSON.stringify(schema)).toBe(ajvsOwnFault(schema));
  });
});
