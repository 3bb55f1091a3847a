import { createRoute } from '@hono/zod-openapi';
import { z } from 'zod';
import { jsonAnswer } from '../openapi/common-schemas.js';
import { apiKeySecurity } from '../openapi/documented-route.js';
import { agentErrors } from './agents-api.js';
import { embeddingsRequestSchema } from './embeddings-request.js';

export const embeddingsListSchema = z.object({
  object: z.literal('list'),
  data: z.array(z.object({ object: z.literal('embedding'), index: z.number().int(), embedding: z.union([z.array(z.number()), z.string()]).describe('The vector: numbers, or base64 of little-endian float32.') })),
  model: z.string().describe('The model as the request named it.'),
  usage: z.object({ prompt_tokens: z.number().int(), total_tokens: z.number().int() }),
});

export const embeddingsApi = createRoute({
  method: 'post', path: '/embeddings', summary: 'Embed text with a configured embeddings model', security: apiKeySecurity,
  request: { body: { content: { 'application/json': { schema: embeddingsRequestSchema } } } },
  responses: {
    200: jsonAnswer(embeddingsListSchema, 'One embedding per input, in order, and the tokens counted.'),
    ...agentErrors(400, 401, 404, 413, 429, 502),
  },
});
