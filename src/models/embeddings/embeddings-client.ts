import { HeraldError } from '../../errors.js';

/** Turns texts into vectors, in order: what knowledge's `Embedder` port asks for (a document's chunks at ingest, a question at search). */
export interface EmbeddingsClient {
  /** the ref it was configured with (`<provider>/<model>`), kept with each document's vectors */
  readonly ref: string;
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

export interface EmbeddingsEndpoint {
  ref: string;
  /** the provider's base URL, e.g. https://api.openai.com/v1 */
  baseUrl: string;
  model: string;
  apiKey?: string;
}

/** inputs per request: OpenAI takes up to 2048, smaller batches keep one failure cheap to retry */
const BATCH = 128;
const TIMEOUT_MS = 30_000;

interface EmbeddingsResponse {
  data?: { index?: number; embedding?: unknown }[];
}

/**
 * An OpenAI-compatible `POST /embeddings` client (https://platform.openai.com/docs/api-reference/embeddings/create):
 * `{ model, input: [...], encoding_format: "float" }` answered by `{ data: [{ index, embedding }] }`.
 * Any failure is a HERALD_EMBEDDINGS_FAILED naming the provider's status, never the texts.
 */
export function openAIEmbedder(endpoint: EmbeddingsEndpoint): EmbeddingsClient {
  const url = `${endpoint.baseUrl.replace(/\/+$/, '')}/embeddings`;
  const fail = (why: string, cause?: unknown) => new HeraldError('HERALD_EMBEDDINGS_FAILED', `embeddings from ${endpoint.ref} failed: ${why}`, { cause });

  async function batch(input: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(endpoint.apiKey ? { authorization: `Bearer ${endpoint.apiKey}` } : {}) },
        body: JSON.stringify({ model: endpoint.model, input, encoding_format: 'float' }),
        signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(TIMEOUT_MS)]) : AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (error) {
      throw fail((error as Error).name === 'TimeoutError' ? `no answer within ${TIMEOUT_MS} ms` : 'the provider could not be reached', error);
    }
    if (!response.ok) {
      // the provider's own message (OpenAI: {error:{message}}) says what to fix: a wrong model, a bad key
      const body = (await response.json().catch(() => undefined)) as { error?: { message?: unknown } } | undefined;
      const message = typeof body?.error?.message === 'string' ? `: ${body.error.message.slice(0, 200)}` : '';
      throw fail(`HTTP ${response.status}${message}`);
    }
    const body = (await response.json().catch(() => undefined)) as EmbeddingsResponse | undefined;
    const vectors: Float32Array[] = [];
    for (const [i, item] of (body?.data ?? []).entries()) {
      const at = typeof item.index === 'number' ? item.index : i;
      if (!Array.isArray(item.embedding) || !item.embedding.every((x) => typeof x === 'number')) throw fail('an answer without a numeric embedding');
      vectors[at] = Float32Array.from(item.embedding as number[]);
    }
    if (vectors.length !== input.length || vectors.some((v) => !v)) throw fail(`${input.length} inputs sent, ${body?.data?.length ?? 0} embeddings received`);
    return vectors;
  }

  return {
    ref: endpoint.ref,
    async embed(texts, signal) {
      const out: Float32Array[] = [];
      for (let from = 0; from < texts.length; from += BATCH) out.push(...(await batch(texts.slice(from, from + BATCH), signal)));
      return out;
    },
  };
}
