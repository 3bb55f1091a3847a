import { z } from 'zod';
import { HeraldError } from '../../../errors.js';
import { parseJsonBody, readBody } from '../../request/read-body.js';
import type { Context } from 'hono';
import { parseFields } from '../request-param.js';

/** OpenAI's metadata: at most 16 pairs, keys up to 64 characters, values up to 512 */
const metadataSchema = z
  .record(z.string().max(64), z.string().max(512))
  .refine((m) => Object.keys(m).length <= 16, 'at most 16 keys')
  .nullish()
  .describe('Up to 16 string pairs kept with the store.');

export const vectorStoreCreateSchema = z
  .object({
    name: z.string().max(256).optional().describe('A name for the store.'),
    file_ids: z.array(z.string().min(1)).max(500).optional().describe('Files (of /v1/files) to add at once; each is processed as POST /vector_stores/{id}/files does.'),
    metadata: metadataSchema,
  })
  .loose();

export const vectorStoreUpdateSchema = z.object({ name: z.string().max(256).nullish().describe('A new name.'), metadata: metadataSchema }).loose();

export const vectorStoreFileCreateSchema = z.object({ file_id: z.string().min(1).describe('A file of /v1/files.') }).loose();

export const vectorStoreSearchSchema = z
  .object({
    query: z.union([z.string().min(1), z.array(z.string().min(1)).min(1).max(16)]).describe('The question, or several searched as one.'),
    max_num_results: z.number().int().min(1).max(50).optional().describe('Results to return, 1 to 50 (default 10).'),
  })
  .loose();

/** Fields that would change the result if ignored are refused by name. */
const UNSUPPORTED: Record<string, string> = {
  filters: 'attribute filters are not supported',
  chunking_strategy: 'files are chunked as /v1/knowledge/upload does (1000 characters, 150 shared)',
  expires_after: 'vector stores do not expire',
  attributes: 'file attributes are not supported',
};

const JSON_BODY_BYTES = 256 * 1024;

/** the JSON body parsed by `schema`, or 400 naming the field */
export async function readJson<T extends z.ZodType>(c: Context, schema: T): Promise<z.output<T>> {
  const bytes = await readBody(c, { maxBytes: JSON_BODY_BYTES, idleTimeoutMs: 30_000 });
  c.set('bodyBytes', bytes.byteLength);
  const body = bytes.byteLength ? parseJsonBody(bytes) : {};
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new HeraldError('HERALD_INVALID_FIELD', 'the body must be a JSON object');
  for (const [field, why] of Object.entries(UNSUPPORTED)) {
    const value = (body as Record<string, unknown>)[field];
    if (value !== undefined && value !== null && !(field === 'chunking_strategy' && (value as { type?: unknown }).type === 'auto')) {
      throw new HeraldError('HERALD_INVALID_FIELD', `${field} is not supported: ${why}`, { param: field, openaiCode: 'unsupported_parameter' });
    }
  }
  return parseFields(schema, body);
}

export const fileBatchCreateSchema = z.object({ file_ids: z.array(z.string().min(1)).min(1).max(500).describe('Files (of /v1/files) to add together.') }).loose();
