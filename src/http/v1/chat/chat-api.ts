import { createRoute } from '@hono/zod-openapi';
import { z } from 'zod';
import { jsonAnswer } from '../../openapi/common-schemas.js';
import { apiKeySecurity } from '../../openapi/documented-route.js';
import { agentErrors } from '../agents-api.js';
import { chatRequestSchema } from './chat-request-schema.js';

export const chatCompletionSchema = z.object({
  id: z.string(),
  object: z.literal('chat.completion'),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(
    z.object({
      index: z.number().int(),
      message: z.object({
        role: z.literal('assistant'),
        content: z.string().nullable().describe('The answer; null when the model only called tools or refused.'),
        refusal: z.string().nullable().describe("The model's refusal, passed through unchanged from an OpenAI-compatible upstream; null otherwise."),
        annotations: z
          .array(z.object({ type: z.literal('url_citation'), url_citation: z.object({ url: z.string(), title: z.string(), start_index: z.number().int(), end_index: z.number().int() }) }))
          .describe('The knowledge passages used, as OpenAI url_citation annotations (url: the knowledge document).'),
      }),
      logprobs: z.null(),
      finish_reason: z.string(),
    }),
  ),
  usage: z.object({ prompt_tokens: z.number().int(), completion_tokens: z.number().int(), total_tokens: z.number().int() }).loose(),
  conversation_id: z.string().describe('Extension: the server-side conversation.'),
  citations: z.array(z.record(z.string(), z.unknown())).optional().describe('Extension: the knowledge chunks used.'),
}).loose();

/**
 * POST /v1/chat/completions as declared for the document: chat is an exchange surface of its own
 * (chat-completions.ts), not a Hono route, so only this declaration is read.
 */
export const chatCompletionsApi = createRoute({
  method: 'post', path: '/chat/completions', summary: 'Chat with a digital employee', security: apiKeySecurity,
  request: { body: { content: { 'application/json': { schema: chatRequestSchema() } } } },
  responses: {
    200: jsonAnswer(chatCompletionSchema, 'The answer; with `stream: true`, server-sent `chat.completion.chunk` events ending `data: [DONE]`.'),
    ...agentErrors(400, 401, 404, 413, 415, 429),
  },
});
