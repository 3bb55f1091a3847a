import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { HeraldError } from '../../errors.js';
import { answerQuestion } from '../../runtime/questions/answer-question.js';
import type { Store, ToolQuestionRecord } from '../../store/port.js';
import { isoTime as iso } from '../../time/iso-time.js';
import { bearerSecurity } from './admin-app.js';
import { errorSchema, idParam } from './admin-schemas.js';

const json = <T extends z.ZodTypeAny>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description });

/** a server's question to a person (MCP elicitation), listed beside the approvals */
export const questionSchema = z
  .object({
    kind: z.literal('question'),
    id: z.string().openapi({ description: 'The question (q_…).' }),
    toolCallId: z.string().openapi({ description: 'The tool call it came during (tc_…).' }),
    ownerKind: z.enum(['run', 'chat', 'response', 'heartbeat', 'mcp']),
    ownerId: z.string().openapi({ description: 'The run that waits on the call.' }),
    agentId: z.string(),
    server: z.string().openapi({ description: 'The MCP server that asks.' }),
    mode: z.enum(['form', 'url']).openapi({ description: 'form: answer the fields of requestedSchema; url: open the page, then accept.' }),
    message: z.string().openapi({ description: "The server's words (its text, not herald's)." }),
    requestedSchema: z.record(z.string(), z.unknown()).nullable().openapi({ description: "form mode: the server's flat JSON Schema of the answer (its defaults fill fields left out)." }),
    url: z.string().nullable().openapi({ description: 'url mode: the page to open.' }),
    status: z.enum(['pending', 'accepted', 'declined', 'cancelled']),
    content: z.record(z.string(), z.unknown()).nullable().openapi({ description: 'An accepted answer, defaults filled in.' }),
    answeredBy: z.string().nullable().openapi({ description: 'Who answered: a name, `timeout` or `call ended`.' }),
    createdAt: z.string().nullable(),
    expiresAt: z.string().nullable().openapi({ description: "Cancelled unless answered by then (the call's timeout)." }),
    answeredAt: z.string().nullable(),
  })
  .openapi('Question');

export const questionView = (q: ToolQuestionRecord): z.infer<typeof questionSchema> => ({
  kind: 'question',
  id: q.id,
  toolCallId: q.toolCallId,
  ownerKind: q.ownerKind,
  ownerId: q.ownerId,
  agentId: q.agentId,
  server: q.server,
  mode: q.mode,
  message: q.message,
  requestedSchema: q.requestedSchema,
  url: q.url,
  status: q.status,
  content: q.content,
  answeredBy: q.answeredBy,
  createdAt: iso(q.createdAt),
  expiresAt: iso(q.expiresAt),
  answeredAt: q.answeredAt === null ? null : iso(q.answeredAt),
});

const value = z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]);
export const answerBody = z
  .object({
    action: z.enum(['accept', 'decline', 'cancel']).openapi({ description: 'accept (with content), decline, or cancel (no choice made).' }),
    content: z.record(z.string(), value).optional().openapi({ description: "accept: the fields' values; a field left out takes the schema's default." }),
  })
  .strict()
  .openapi('AnswerRequest');

/** the questions still waiting, for GET /admin/approvals */
export async function pendingQuestions(store: Pick<Store, 'questions'>, limit: number): Promise<z.infer<typeof questionSchema>[]> {
  return (await store.questions.pending(limit)).map(questionView);
}

/** a person's answer to a server's question, recorded with the caller's name; the waiting call hands it to the server */
export function registerQuestionRoutes(app: OpenAPIHono, deps: { store: Store }): void {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/questions/{id}',
      tags: ['approvals'],
      summary: "One server's question (pending or answered)",
      security: bearerSecurity,
      request: { params: idParam('Question', 'id (q_…)') },
      responses: { 200: json(questionSchema, 'The question'), 401: json(errorSchema, 'Not signed in'), 404: json(errorSchema, 'No such question') },
    }),
    async (c) => {
      const question = await deps.store.questions.get(c.req.valid('param').id);
      if (!question) throw new HeraldError('HERALD_NOT_FOUND', 'question not found');
      return c.json(questionView(question), 200);
    },
  );
  app.openapi(
    createRoute({
      method: 'post',
      path: '/approvals/{id}/answer',
      tags: ['approvals'],
      summary: "Answer a tool server's question (kind question): accept with content, decline, or cancel",
      security: bearerSecurity,
      request: { params: idParam('Question', 'id (q_…)'), body: { content: { 'application/json': { schema: answerBody } }, required: true } },
      responses: {
        200: json(questionSchema, 'The question with its answer'),
        400: json(errorSchema, 'A field of the body is invalid (named), or a required field of the question is missing'),
        401: json(errorSchema, 'Not signed in'),
        403: json(errorSchema, 'A console request without its CSRF token'),
        404: json(errorSchema, 'No such question'),
        409: json(errorSchema, 'The question no longer waits (answered, timed out, or its call ended)'),
      },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const settled = await answerQuestion(deps.store, c.req.valid('param').id, { action: body.action, content: body.content, by: c.get('adminCaller') });
      return c.json(questionView(settled), 200);
    },
  );
}
