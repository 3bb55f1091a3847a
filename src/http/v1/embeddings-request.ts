import { z } from 'zod';
import { HeraldError } from '../../errors.js';
import { parseFields } from './request-param.js';

/** OpenAI's limit on inputs per request (https://platform.openai.com/docs/api-reference/embeddings/create) */
const MAX_INPUTS = 2048;
const text = z.string().min(1, 'input cannot be an empty string');
const texts = z.array(text).min(1, 'input cannot be an empty array').max(MAX_INPUTS, `at most ${MAX_INPUTS} inputs per request`);

/** The body of POST /v1/embeddings: OpenAI's fields. */
export const embeddingsRequestSchema = z
  .object({
    input: z.union([text, texts]).describe(`The text to embed: a string or an array of at most ${MAX_INPUTS} strings (token arrays are not taken).`),
    model: z.string().min(1).describe('An embeddings model herald serves: its `<provider>/<model>` ref, an alias, or its bare model name.'),
    encoding_format: z.enum(['float', 'base64']).nullish().describe('float (default) or base64 (little-endian float32, as OpenAI encodes it).'),
    dimensions: z.number().int().positive().nullish().describe('Dimensions of the output vectors, passed to the model (text-embedding-3 and later).'),
    user: z.string().max(256).nullish().describe('End-user id, passed to the model.'),
  })
  .loose();

export type EmbeddingsRequest = z.infer<typeof embeddingsRequestSchema>;

const isTokens = (value: unknown) => typeof value === 'number' || (Array.isArray(value) && value.length > 0 && value.every((t) => typeof t === 'number'));

export function parseEmbeddingsRequest(body: unknown): EmbeddingsRequest & { input: string[] } {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new HeraldError('HERALD_INVALID_FIELD', 'the body must be a JSON object');
  const input = (body as { input?: unknown }).input;
  // OpenAI takes token ids too; herald's providers are not all OpenAI's, whose tokenizer those ids belong to
  if (Array.isArray(input) && (isTokens(input) || input.some(isTokens))) {
    throw new HeraldError('HERALD_INVALID_FIELD', 'input: token arrays are not supported; send the text as a string or an array of strings', { param: 'input', openaiCode: 'unsupported_parameter' });
  }
  // a union names no branch's fault: the input is checked by the branch its type picks
  const parsed: EmbeddingsRequest = parseFields(Array.isArray(input) ? embeddingsRequestSchema.extend({ input: texts }) : embeddingsRequestSchema, body);
  return { ...parsed, input: typeof parsed.input === 'string' ? [parsed.input] : parsed.input };
}

/** a vector as OpenAI's base64 encoding has it: the float32 values, little-endian */
export function base64Vector(vector: number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  for (const [i, x] of vector.entries()) bytes.writeFloatLE(x, i * 4);
  return bytes.toString('base64');
}
