import { OpenAPIHono } from '@hono/zod-openapi';
import { HeraldError } from '../../errors.js';
import { createEmbeddings, type EmbeddingsDeps } from '../../runtime/v1/embeddings.js';
import { parseJsonBody, readBody } from '../request/read-body.js';
import { serveDocumented } from '../openapi/documented-route.js';
import { embeddingsApi } from './embeddings-api.js';
import { base64Vector, parseEmbeddingsRequest } from './embeddings-request.js';

export type EmbeddingsRoutesDeps = EmbeddingsDeps;

/** 2048 inputs of OpenAI's 8192 tokens each would be far more: this bounds what one request holds in memory */
const EMBEDDINGS_MAX_BODY_BYTES = 4 * 1024 * 1024;

/** POST /v1/embeddings: OpenAI's embeddings API, answered by a configured provider's embeddings model. */
export function embeddingsRoutes(deps: EmbeddingsRoutesDeps): OpenAPIHono {
  const app = new OpenAPIHono();

  serveDocumented(app, embeddingsApi, async (c) => {
    const bytes = await readBody(c, { maxBytes: EMBEDDINGS_MAX_BODY_BYTES, idleTimeoutMs: 30_000 }).catch((error) => {
      if (error instanceof HeraldError && error.code === 'HERALD_PAYLOAD_TOO_LARGE') {
        throw new HeraldError('HERALD_PAYLOAD_TOO_LARGE', `The request body is larger than ${EMBEDDINGS_MAX_BODY_BYTES} bytes.`, { openaiCode: 'request_too_large', headers: error.headers });
      }
      throw error;
    });
    c.set('bodyBytes', bytes.byteLength);
    const body = parseEmbeddingsRequest(parseJsonBody(bytes));
    const answer = await createEmbeddings(deps, c.get('principal'), body.model, {
      input: body.input,
      ...(body.dimensions != null && { dimensions: body.dimensions }),
      ...(body.user != null && { user: body.user }),
      signal: c.req.raw.signal,
    });
    const base64 = body.encoding_format === 'base64';
    return c.json({
      object: 'list',
      data: answer.vectors.map((vector, index) => ({ object: 'embedding', index, embedding: base64 ? base64Vector(vector) : vector })),
      model: body.model,
      usage: answer.usage,
    });
  });

  return app;
}
