import { Hono } from 'hono';
import type { HeraldConfig } from '../../config/schema.js';
import { HeraldError } from '../../errors.js';
import { requestEmbeddings } from '../../models/embeddings-upstream.js';
import type { Budgets } from '../../platform/budgets.js';
import { embeddingsModelFor } from '../../platform/embeddings-models.js';
import type { UsageRecorder } from '../../platform/usage-recorder.js';
import { parseJsonBody, readBody } from '../read-body.js';
import { base64Vector, parseEmbeddingsRequest } from './embeddings-request.js';
import { enforceBudgets } from './principal-budgets.js';

const estimatedUsage = (input: string[]) => {
  const words = input.reduce((n, s) => n + (s.match(/\S+/g) ?? []).length, 0);
  return { prompt_tokens: words, total_tokens: words };
};

export interface EmbeddingsRoutesDeps {
  config: HeraldConfig;
  usage?: UsageRecorder;
  budgets?: Budgets;
}

/** 2048 inputs of OpenAI's 8192 tokens each would be far more: this bounds what one request holds in memory */
const EMBEDDINGS_MAX_BODY_BYTES = 4 * 1024 * 1024;

/** POST /v1/embeddings: OpenAI's embeddings API, answered by a configured provider's embeddings model. */
export function embeddingsRoutes(deps: EmbeddingsRoutesDeps): Hono {
  const app = new Hono();

  app.post('/embeddings', async (c) => {
    const bytes = await readBody(c, { maxBytes: EMBEDDINGS_MAX_BODY_BYTES, idleTimeoutMs: 30_000 }).catch((error) => {
      if (error instanceof HeraldError && error.code === 'HERALD_PAYLOAD_TOO_LARGE') {
        throw new HeraldError('HERALD_PAYLOAD_TOO_LARGE', `The request body is larger than ${EMBEDDINGS_MAX_BODY_BYTES} bytes.`, { openaiCode: 'request_too_large', headers: error.headers });
      }
      throw error;
    });
    c.set('bodyBytes', bytes.byteLength);
    const body = parseEmbeddingsRequest(parseJsonBody(bytes));
    const endpoint = embeddingsModelFor(deps.config, body.model);
    const principal = c.get('principal');
    const budgetCheck = enforceBudgets(principal, deps.budgets);
    if (budgetCheck) await budgetCheck;
    const answer = await requestEmbeddings(endpoint, {
      input: body.input,
      ...(body.dimensions != null && { dimensions: body.dimensions }),
      ...(body.user != null && { user: body.user }),
      signal: c.req.raw.signal,
    });
    const base64 = body.encoding_format === 'base64';
    // a provider that counts nothing: whitespace words, as the embedded model counts
    const usage = answer.usage ?? estimatedUsage(body.input);
    deps.usage?.record({ source: 'embeddings', model: endpoint.ref, keyName: principal.name, promptTokens: usage.prompt_tokens, completionTokens: 0, estimated: !answer.usage });
    return c.json({
      object: 'list',
      data: answer.vectors.map((vector, index) => ({ object: 'embedding', index, embedding: base64 ? base64Vector(vector) : vector })),
      model: body.model,
      usage,
    });
  });

  return app;
}
