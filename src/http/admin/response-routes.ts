import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { HeraldError } from '../../errors.js';
import type { Store } from '../../store/port.js';
import { isoTime as iso } from '../../time/iso-time.js';
import { recentResponses, responseToolCallCount } from '../../runtime/turns/responses/response-browse.js';
import { responseAnswer, responseStore, responseTurn, type ResponseRecord } from '../../runtime/turns/responses/response-record.js';
import { bearerSecurity } from './admin-app.js';
import { errorSchema, messageSchema } from './admin-schemas.js';
import { messagesView } from './views/message-view.js';

const json = <T extends z.ZodTypeAny>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description });
const q = (name: string, description: string) => ({ param: { name, in: 'query' as const }, description });
/** how much of an answer a list row shows */
const OUTPUT_START = 200;

const responseSummarySchema = z
  .object({
    id: z.string(),
    agentId: z.string(),
    createdAt: z.string().openapi({ format: 'date-time' }),
    previousResponseId: z.string().nullable().openapi({ description: 'The response it continues (`previous_response_id`).' }),
    output: z.string().openapi({ description: `The start of the answer (its first ${OUTPUT_START} characters; a refusal's text when the model declined).` }),
    toolCalls: z.number().int().openapi({ description: 'The tool calls its model made: server-side ones (MCP, herald) and client function calls it handed back.' }),
    paused: z.boolean().openapi({ description: 'Waiting for the client to approve MCP calls (mcp_approval_request).' }),
    usage: z.object({ prompt_tokens: z.number().int(), completion_tokens: z.number().int(), total_tokens: z.number().int() }),
  })
  .openapi('ResponseSummary');

const responseDetailSchema = responseSummarySchema
  .extend({
    output: z.string().openapi({ description: 'The whole answer.' }),
    transcript: z.array(messageSchema).openapi({
      description: "The response's own turn, oldest first: its input, each server-side tool call where the model asked for it with its result, then the answer.",
    }),
  })
  .openapi('ResponseDetail');

const summaryOf = (r: ResponseRecord, output: string) => ({
  id: r.id,
  agentId: r.agentId,
  createdAt: iso(r.createdAt)!,
  previousResponseId: r.previousResponseId,
  output,
  toolCalls: responseToolCallCount(r),
  paused: r.paused !== undefined,
  usage: r.usage,
});
const answerOf = (r: ResponseRecord) => responseAnswer(r).content;

/** GET /admin/responses and /admin/responses/:id: the stored Responses API responses, with each one's tool calls */
export function registerResponseRoutes(app: OpenAPIHono, deps: { store: Store }): void {
  const responses = responseStore(deps.store.state);
  app.openapi(
    createRoute({
      method: 'get',
      path: '/responses',
      tags: ['responses'],
      summary: 'Stored Responses API responses, newest first',
      security: bearerSecurity,
      request: {
        query: z
          .object({
            agent: z.string().optional().openapi(q('agent', "The response's agent.")),
            limit: z
              .string()
              .optional()
              .refine((v) => v === undefined || (/^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= 200), 'must be an integer from 1 to 200')
              .transform((v) => (v === undefined ? 50 : Number(v)))
              .openapi({ ...q('limit', 'How many, 1 to 200 (default 50).'), type: 'integer' }),
          })
          .strict(),
      },
      responses: { 200: json(z.object({ data: z.array(responseSummarySchema) }), 'The newest responses'), 400: json(errorSchema, 'Invalid parameter'), 401: json(errorSchema, 'Not signed in') },
    }),
    async (c) => {
      const { agent, limit } = c.req.valid('query');
      const rows = await recentResponses(responses, { agentId: agent, limit });
      return c.json({ data: rows.map((r) => summaryOf(r, answerOf(r).slice(0, OUTPUT_START))) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/responses/{id}',
      tags: ['responses'],
      summary: 'One stored response with its transcript: the tool calls where the model asked for them, and their results',
      security: bearerSecurity,
      request: { params: z.object({ id: z.string().openapi({ param: { name: 'id', in: 'path' }, example: 'resp_0123456789abcdef01234567' }) }) },
      responses: { 200: json(responseDetailSchema, 'The response'), 404: json(errorSchema, 'No such response'), 401: json(errorSchema, 'Not signed in') },
    }),
    async (c) => {
      const record = await responses.get(c.req.valid('param').id);
      if (!record) throw new HeraldError('HERALD_RESPONSE_NOT_FOUND');
      return c.json({ ...summaryOf(record, answerOf(record)), transcript: messagesView(responseTurn(record)) }, 200);
    },
  );
}
