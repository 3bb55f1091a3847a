import { HeraldError } from '../../errors.js';
import type { EmbeddingsEndpoint } from './embeddings-client.js';
import { OpenAICompatibleClient } from '../providers/openai-compatible-client.js';
import { ProviderHttpError } from '../providers/provider-errors.js';
import { traced } from '../../tracing/tracing.js';

export interface EmbeddingsCall {
  input: string[];
  dimensions?: number;
  user?: string;
  signal?: AbortSignal;
}

/** OpenAI's embeddings usage: input tokens only */
export interface EmbeddingsUsage {
  prompt_tokens: number;
  total_tokens: number;
}

export interface EmbeddingsAnswer {
  /** one vector per input, in the inputs' order */
  vectors: number[][];
  /** the provider's own count, when it sent one */
  usage?: EmbeddingsUsage;
}

const TIMEOUT_MS = 60_000;

/**
 * One `POST /embeddings` to an OpenAI-compatible provider
 * (https://platform.openai.com/docs/api-reference/embeddings/create), floats asked for whatever
 * the client wants (not every compatible server encodes base64; herald encodes it itself).
 * A 400 of the provider is the caller's (a `dimensions` the model does not take): answered as a
 * 400 with the provider's message and param. Anything else is the provider's failure: 502.
 */
export function requestEmbeddings(endpoint: EmbeddingsEndpoint, call: EmbeddingsCall): Promise<EmbeddingsAnswer> {
  // OpenTelemetry's GenAI conventions, as for chat (model-span.ts): counts, never the inputs
  const provider = endpoint.ref.split('/')[0];
  const attributes = { 'gen_ai.operation.name': 'embeddings', 'gen_ai.provider.name': provider, 'gen_ai.system': provider, 'gen_ai.request.model': endpoint.model, 'herald.model.ref': endpoint.ref, 'herald.embeddings.inputs': call.input.length };
  return traced(`embeddings ${endpoint.model}`, { kind: 'client', attributes }, async (span) => {
    const answer = await embeddingsOnce(endpoint, call);
    span.set({ 'gen_ai.usage.input_tokens': answer.usage?.prompt_tokens });
    return answer;
  });
}

async function embeddingsOnce(endpoint: EmbeddingsEndpoint, call: EmbeddingsCall): Promise<EmbeddingsAnswer> {
  const client = new OpenAICompatibleClient({ baseUrl: endpoint.baseUrl, apiKey: endpoint.apiKey });
  const body = {
    model: endpoint.model,
    input: call.input,
    encoding_format: 'float',
    ...(call.dimensions !== undefined && { dimensions: call.dimensions }),
    ...(call.user !== undefined && { user: call.user }),
  };
  const timeout = AbortSignal.timeout(TIMEOUT_MS);
  let answer: unknown;
  try {
    answer = await client.post('/embeddings', body, call.signal ? AbortSignal.any([call.signal, timeout]) : timeout);
  } catch (error) {
    if (error instanceof ProviderHttpError && error.status === 400) {
      throw new HeraldError('HERALD_INVALID_FIELD', `${endpoint.ref}: ${error.message.replace(/^400 /, '')}`, { param: typeof error.param === 'string' ? error.param : undefined, cause: error });
    }
    const why = timeout.aborted ? `no answer within ${TIMEOUT_MS} ms` : (error as Error).message;
    throw new HeraldError('HERALD_MODEL_FAILED', `embeddings from ${endpoint.ref} failed: ${why}`, { cause: error });
  }
  return readAnswer(endpoint.ref, call.input.length, answer);
}

function readAnswer(ref: string, inputs: number, answer: unknown): EmbeddingsAnswer {
  const fail = (why: string) => new HeraldError('HERALD_MODEL_FAILED', `embeddings from ${ref} failed: ${why}`);
  const body = answer as { data?: { index?: unknown; embedding?: unknown }[]; usage?: { prompt_tokens?: unknown; total_tokens?: unknown } } | undefined;
  const vectors: number[][] = [];
  for (const [i, item] of (Array.isArray(body?.data) ? body.data : []).entries()) {
    const at = typeof item?.index === 'number' ? item.index : i;
    if (!Array.isArray(item?.embedding) || !item.embedding.every((x) => typeof x === 'number')) throw fail('an answer without a numeric embedding');
    vectors[at] = item.embedding as number[];
  }
  if (vectors.length !== inputs || vectors.some((v) => !v)) throw fail(`${inputs} inputs sent, ${body?.data?.length ?? 0} embeddings received`);
  const prompt = body?.usage?.prompt_tokens;
  const usage = typeof prompt === 'number' && Number.isFinite(prompt) ? { prompt_tokens: prompt, total_tokens: typeof body?.usage?.total_tokens === 'number' ? body.usage.total_tokens : prompt } : undefined;
  return { vectors, ...(usage && { usage }) };
}
