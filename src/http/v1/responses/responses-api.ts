import { createRoute } from '@hono/zod-openapi';
import { z } from 'zod';
import { idParams, jsonAnswer, openaiErrorAnswers } from '../../openapi/common-schemas.js';
import { apiKeySecurity } from '../../openapi/documented-route.js';
import { responsesRequestSchema } from './responses-request.js';

const fileCitation = z.object({ type: z.literal('file_citation'), file_id: z.string().describe('The file (file-…) of a vector store, or the knowledge document.'), filename: z.string(), index: z.number().int() });

export const responseObjectSchema = z
  .object({
    id: z.string(),
    object: z.literal('response'),
    created_at: z.number().int(),
    status: z.enum(['in_progress', 'completed', 'incomplete']),
    model: z.string().describe('The agent id.'),
    instructions: z.string().nullable(),
    previous_response_id: z.string().nullable(),
    max_output_tokens: z.number().int().nullable(),
    store: z.boolean(),
    metadata: z.record(z.string(), z.string()),
    output: z.array(
      z.union([
        z.object({
          id: z.string(),
          type: z.literal('message'),
          role: z.literal('assistant'),
          status: z.string(),
          content: z.array(z.object({ type: z.literal('output_text'), text: z.string(), annotations: z.array(fileCitation).describe('The knowledge passages used.') }).loose()),
        }),
        z
          .object({
            id: z.string().describe('fs_…'),
            type: z.literal('file_search_call'),
            status: z.literal('completed'),
            queries: z.array(z.string()),
            results: z
              .array(z.object({ file_id: z.string(), filename: z.string(), score: z.number(), text: z.string(), attributes: z.record(z.string(), z.unknown()) }))
              .nullable()
              .describe('With include: ["file_search_call.results"]; null otherwise.'),
          })
          .describe('The file_search tool ran (first in the output).'),
      ]),
    ),
    usage: z.object({ input_tokens: z.number().int(), output_tokens: z.number().int(), total_tokens: z.number().int() }).loose().nullable(),
  })
  .loose();

const errors = (text: Record<number, string>) => openaiErrorAnswers(Object.keys(text).map(Number), text);

/** POST /v1/responses, GET and DELETE /v1/responses/{id}, as declared for the document */
export const responsesApi = {
  create: createRoute({
    method: 'post', path: '/responses', summary: 'A response of a digital employee (OpenAI Responses API)', security: apiKeySecurity,
    request: { body: { content: { 'application/json': { schema: responsesRequestSchema } } } },
    responses: {
      200: jsonAnswer(
        responseObjectSchema,
        'The response; with `stream: true`, typed server-sent events (`event: response.created` ... `response.completed`, each with `sequence_number`), no `[DONE]`.',
      ),
      ...errors({ 400: 'Invalid or unsupported field (named in `param`).', 401: 'Missing or wrong API key.', 404: 'No such agent (or one outside the key\'s scope), or no such previous_response_id.', 413: 'Body over 4 MiB.', 429: 'Rate limit of the key.', 502: 'The model provider failed.' }),
    },
  }),
  get: createRoute({
    method: 'get', path: '/responses/{id}', summary: 'A stored response', security: apiKeySecurity,
    request: { params: idParams },
    responses: { 200: jsonAnswer(responseObjectSchema, 'The response.'), ...errors({ 401: 'Missing or wrong API key.', 404: 'No such response (or not stored).', 429: 'Rate limit of the key.' }) },
  }),
  delete: createRoute({
    method: 'delete', path: '/responses/{id}', summary: 'Delete a stored response', security: apiKeySecurity,
    request: { params: idParams },
    responses: {
      200: jsonAnswer(z.object({ id: z.string(), object: z.literal('response.deleted'), deleted: z.literal(true) }), 'Deleted.'),
      ...errors({ 401: 'Missing or wrong API key.', 404: 'No such response.', 429: 'Rate limit of the key.' }),
    },
  }),
};
