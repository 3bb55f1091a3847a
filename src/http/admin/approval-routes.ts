import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Logger } from 'pino';
import type { HeraldConfig } from '../../config/schema.js';
import { approvalContext, pendingApprovals, type ApprovalContext } from '../../runtime/approvals/approval-context.js';
import { approvalFacts } from '../../runtime/approvals/approval-facts.js';
import { mappingOf } from '../../runtime/approvals/approval-notice.js';
import { decideApproval } from '../../runtime/approvals/decide-approval.js';
import type { Store } from '../../store/port.js';
import { isoTime as iso } from '../../time/iso-time.js';
import { bearerSecurity } from './admin-app.js';
import { errorSchema, idParam, runStatuses } from './admin-schemas.js';
import { toolCallSchema, toolCallView } from './views/tool-call-view.js';
import { pendingQuestions, questionSchema } from './question-routes.js';

const json = <T extends z.ZodTypeAny>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description });
const REASON_MAX = 2000;

export const approvalSchema = toolCallSchema
  .extend({
    ownerKind: z.enum(['run', 'chat', 'response', 'heartbeat', 'mcp']).openapi({ description: 'What made the call: a hook run (run), a chat completion, a response, a heartbeat turn, an MCP client through /mcp (mcp: the owner is its session, keyName the API key).' }),
    ownerId: z.string().openapi({ description: 'The run id (or response, completion, heartbeat turn id).' }),
    agentId: z.string(),
    mappingId: z.string().nullable().openapi({ description: "The mapping whose run made the call (the run's action's)." }),
    run: z
      .object({ id: z.string(), name: z.string(), status: z.enum(runStatuses), sessionKey: z.string(), createdAt: z.string().nullable() })
      .nullable()
      .openapi({ description: 'The run that waits on the call (null for a call that is not a run\'s).' }),
    trigger: z
      .object({
        name: z.string().openapi({ description: "The run's name (a preset's names the repository and issue, e.g. `GitHub acme/api#42`)." }),
        mappingId: z.string(),
        path: z.string().openapi({ description: 'The hook path the request came to.' }),
        headline: z.string().openapi({ description: "The first line of the run's message: a preset's names the sender and the title (`Issue #42 opened in acme/api by alice: Crash on start`)." }),
      })
      .nullable()
      .openapi({ description: 'The request that made the run (null for a call that is not a run\'s).' }),
    mcpClient: z
      .object({ name: z.string(), version: z.string(), key: z.string() })
      .nullable()
      .openapi({ description: "The MCP client that made the call through /mcp (owner kind mcp): its name and version from initialize, and its API key; null for any other call." }),
    agentSaid: z.string().nullable().openapi({ description: 'What the model wrote in the turn that asked for the call, before it (null when it wrote nothing).' }),
    why: z.array(z.string()).openapi({ description: "Why the call needs a person, one sentence per rule that holds: a write over outside content the mapping's `tools.grant` does not grant (or grants only for a signed request, and this one was not), `requireApproval` of the server, agent or mapping." }),
  })
  .openapi('Approval');

const approvalView = (config: Pick<HeraldConfig, 'tools' | 'agents'>, { call, run, mcpClient }: ApprovalContext): z.infer<typeof approvalSchema> => ({
  ...toolCallView(call),
  mcpClient: mcpClient ?? null,
  ownerKind: call.ownerKind,
  ownerId: call.ownerId,
  agentId: call.agentId,
  mappingId: call.mappingId ?? mappingOf(run ?? undefined),
  run: run ? { id: run.id, name: run.name, status: run.status, sessionKey: run.sessionKey, createdAt: iso(run.createdAt) } : null,
  ...approvalFacts(call, run, config),
});

const reason = z.string().trim().min(1).max(REASON_MAX);
export const approveBody = z.object({ reason: reason.optional().openapi({ description: 'Why (optional), recorded with the approval.' }) }).strict().openapi('ApproveRequest');
export const denyBody = z
  .object({ reason: reason.openapi({ description: 'Why the call is refused: recorded, and told to the model with the refusal.', example: 'Do not close issues from a webhook' }) })
  .strict()
  .openapi('DenyRequest');

const refused = {
  401: json(errorSchema, 'Not signed in'),
  403: json(errorSchema, 'A console request without its CSRF token'),
  404: json(errorSchema, 'No such tool call'),
  409: json(errorSchema, 'The call no longer waits for approval (decided already, by a person or the timeout), or never needed one'),
};

/**
 * Approvals by a person: the calls waiting for one, and the decision, recorded with the caller's
 * identity (adminCaller). Decided through the store atomically: of two decisions, one wins (409).
 */
export function registerApprovalRoutes(app: OpenAPIHono, deps: { config: HeraldConfig; store: Store; logger?: Logger }): void {
  const { store } = deps;
  const view = (context: ApprovalContext) => approvalView(deps.config, context);

  app.openapi(
    createRoute({
      method: 'get',
      path: '/approvals',
      tags: ['approvals'],
      summary: 'Tool calls waiting for a person, oldest first (the first to expire first), with their run',
      security: bearerSecurity,
      request: {
        query: z
          .object({
            limit: z
              .string()
              .optional()
              .refine((v) => v === undefined || (/^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= 1000), 'must be an integer from 1 to 1000')
              .transform((v) => (v === undefined ? 100 : Number(v)))
              .openapi({ param: { name: 'limit', in: 'query' }, type: 'integer', example: 50, description: 'At most this many, 1 to 1000 (default 100).' }),
          })
          .strict(),
      },
      responses: {
        200: json(z.object({ data: z.array(z.union([approvalSchema, questionSchema])) }), "The pending approvals, then the tool servers' pending questions (kind question)"),
        400: json(errorSchema, 'Invalid parameter'),
        401: json(errorSchema, 'Not signed in'),
      },
    }),
    async (c) => {
      const { limit } = c.req.valid('query');
      const approvals = (await pendingApprovals(store, limit)).map(view);
      return c.json({ data: [...approvals, ...(await pendingQuestions(store, limit - approvals.length))] }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/approvals/{id}',
      tags: ['approvals'],
      summary: 'One tool call that needs (or needed) approval, with its run and its decision',
      security: bearerSecurity,
      request: { params: idParam('Tool call', 'id (tc_…)') },
      responses: { 200: json(approvalSchema, 'The call'), 401: json(errorSchema, 'Not signed in'), 404: json(errorSchema, 'No such tool call') },
    }),
    async (c) => c.json(view(await approvalContext(store, c.req.valid('param').id)), 200),
  );

  const decide = (decision: 'approve' | 'deny') =>
    createRoute({
      method: 'post',
      path: `/approvals/{id}/${decision}`,
      tags: ['approvals'],
      summary:
        decision === 'approve'
          ? 'Approve a waiting tool call: it runs when its run resumes (queued again once its last waiting call is decided)'
          : 'Deny a waiting tool call, with a reason: the model is told it was refused when its run resumes',
      security: bearerSecurity,
      request: {
        params: idParam('Tool call', 'id (tc_…)'),
        body: decision === 'approve' ? { content: { 'application/json': { schema: approveBody } }, required: false } : { content: { 'application/json': { schema: denyBody } }, required: true },
      },
      responses: { 200: json(approvalSchema, 'The call with its decision, and its run as it stands now'), 400: json(errorSchema, 'A field of the body is invalid (named)'), ...refused },
    });

  for (const decision of ['approve', 'deny'] as const) {
    app.openapi(decide(decision), async (c) => {
      const { id } = c.req.valid('param');
      const body = (c.req.valid('json') as { reason?: string } | undefined) ?? {};
      await decideApproval({ store, logger: deps.logger }, id, { decision, by: c.get('adminCaller'), reason: body.reason });
      return c.json(view(await approvalContext(store, id)), 200);
    });
  }
}
