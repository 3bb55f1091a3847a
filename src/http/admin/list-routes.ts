import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { defaultAgent } from '../../config/default-agent.js';
import type { HeraldConfig } from '../../config/schema.js';
import { HeraldError } from '../../errors.js';
import { isoTime as iso } from '../../time/iso-time.js';
import type { DeliveryActions } from '../../runtime/delivery/delivery-actions.js';
import { deliveryView } from '../../runtime/delivery/delivery-view.js';
import { runDetail } from '../../runtime/operator/run-detail.js';
import { runLabels } from '../../runtime/operator/run-labels.js';
import type { Store } from '../../store/port.js';
import type { StoreProbe } from '../../store/contracts/store-probe.js';
import { bearerSecurity } from './admin-app.js';
import {
  deliveryRowSchema,
  deliveryStatuses,
  errorSchema,
  eventSchema,
  idParam,
  listQuery,
  messageSchema,
  page,
  receiptOutcomes,
  receiptRowSchema,
  receiptSchema,
  retainedPayloadSchema,
  runDetailSchema,
  runListItemSchema,
  runSchema,
  runStatuses,
  sessionSchema,
} from './admin-schemas.js';
import { decodeCursor, eventView, pageOf, receiptView, runView, sessionView } from './views/admin-views.js';
import { runTimes } from '../../runtime/runs/run-times.js';
import { messagesView } from './views/message-view.js';
import { countsOfCalls, toolCallCounts, toolCallFilters, toolLimitOf } from '../../runtime/operator/tool-call-summary.js';
import { fireView } from './views/schedule-fire-view.js';
import { toolCallView } from './views/tool-call-view.js';
import { shownRecipient } from '../../runtime/delivery/recipient-credential.js';

const json = <T extends z.ZodTypeAny>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description });
const errors = { 400: json(errorSchema, 'Invalid parameter'), 401: json(errorSchema, 'Not signed in') };
const q = (name: string, description: string) => ({ param: { name, in: 'query' as const }, description });

/** The lists and single-row reads of the admin API; newest first, cursor-paginated. */
export function registerListRoutes(app: OpenAPIHono, deps: { config: HeraldConfig; store: Store; delivery: DeliveryActions; probe?: StoreProbe }): void {
  const { store } = deps;
  const list = <T>(query: { limit: number; cursor?: string }) => ({ limit: query.limit + 1, after: decodeCursor(query.cursor) });

  app.openapi(
    createRoute({
      method: 'get',
      path: '/receipts',
      tags: ['requests'],
      summary: 'Receipts of webhook requests',
      security: bearerSecurity,
      request: {
        query: listQuery.extend({
          status: z.string().regex(/^\d{3}$/, 'must be an HTTP status').transform(Number).optional().openapi(q('status', 'Exact HTTP status.')),
          result: z.enum(['ok', 'error']).optional().openapi(q('result', 'error: status 400 and above.')),
          mapping: z.string().optional().openapi(q('mapping', 'Mapping id.')),
          path: z.string().optional().openapi(q('path', 'Hook path after hooks.path.')),
          outcome: z.enum(receiptOutcomes).optional().openapi(q('outcome', 'wake, agent, tool (a direct tool call), skip, error, idempotent_replay or respond (a handshake the mapping answered).')),
          run: z.string().optional().openapi(q('run', 'The run the request started.')),
          retained: z.enum(['true', 'false']).optional().openapi(q('retained', 'true: only requests whose payload is retained (replayable).')),
          failed: z.enum(['true', 'false']).optional().openapi(q('failed', 'true: only requests whose mapping failed (a receipt with a `failure`: its stage, mapping and cause). Narrower than result=error, which also holds refused requests (a bad signature, no mapping).')),
        }).strict(),
      },
      responses: { 200: json(page(receiptRowSchema), 'One page of receipts, each with its run named'), ...errors },
    }),
    async (c) => {
      const query = c.req.valid('query');
      const rows = await store.receipts.list({
        ...query,
        ...list(query),
        mappingId: query.mapping,
        runId: query.run,
        retained: query.retained === 'true' ? true : undefined,
        failed: query.failed === 'true' ? true : undefined,
      });
      const runs = await runLabels(store, rows.map((r) => r.runId));
      return c.json(pageOf(rows, query.limit, (r) => [r.receivedAt, r.id], (r) => ({ ...receiptView(r), run: (r.runId && runs.get(r.runId)) || null })), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/receipts/{id}',
      tags: ['requests'],
      summary: 'One receipt, with its retained payload when there is one',
      security: bearerSecurity,
      request: { params: idParam('Receipt', 'id') },
      responses: {
        200: json(receiptSchema.extend({ payload: retainedPayloadSchema.nullable(), replays: z.array(receiptSchema) }), 'The receipt'),
        404: json(errorSchema, 'No such receipt'),
        401: errors[401],
      },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      const receipt = await store.receipts.get(id);
      if (!receipt) throw new HeraldError('HERALD_NOT_FOUND', 'receipt not found');
      const payload = await store.receipts.payload(id, Date.now());
      const replays = await store.receipts.list({ limit: 50, replayOf: id });
      return c.json(
        {
          ...receiptView(receipt),
          payload: payload
            ? { body: Buffer.from(payload.body).toString('utf8'), headers: payload.headers, query: payload.query, expiresAt: iso(payload.expiresAt) }
            : null,
          replays: replays.map(receiptView),
        },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/runs',
      tags: ['runs'],
      summary: 'Agent runs',
      security: bearerSecurity,
      request: {
        query: listQuery.extend({
          status: z.enum(runStatuses).optional().openapi(q('status', 'Run status.')),
          agent: z.string().optional().openapi(q('agent', 'Agent id.')),
          session: z.string().optional().openapi(q('session', 'Session key.')),
          mapping: z.string().optional().openapi(q('mapping', 'Runs of actions this mapping resolved (their re-runs included).')),
          channel: z.string().optional().openapi(q('channel', "The channel of the run's delivery once resolved, else the channel its action asked for (`last` included).")),
          rerunOf: z.string().optional().openapi(q('rerunOf', 'Re-runs of this run.')),
          tools: z.enum(toolCallFilters).optional().openapi(q('tools', 'Runs that called tools (`any`), or with a call waiting for a person, refused or denied, or failed.')),
        }).strict(),
      },
      responses: { 200: json(page(runListItemSchema), 'One page of runs'), ...errors },
    }),
    async (c) => {
      const query = c.req.valid('query');
      const rows = await store.browse.runs({ ...query, ...list(query), agentId: query.agent, sessionKey: query.session, mappingId: query.mapping, toolCalls: query.tools });
      const counts = await store.toolCalls.statusCounts('run', rows.map((r) => r.id));
      // the wait for a person is read from the calls: only the page's runs that made any
      const calls = new Map(await Promise.all(rows.filter((r) => counts.has(r.id)).map(async (r) => [r.id, await store.toolCalls.ofOwner('run', r.id)] as const)));
      const now = Date.now();
      return c.json(pageOf(rows, query.limit, (r) => [r.createdAt, r.id], (r) => ({ ...runView(r), tools: toolCallCounts(counts.get(r.id)), times: runTimes(r, calls.get(r.id) ?? [], now) })), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/runs/{id}',
      tags: ['runs'],
      summary: 'One run: its action, the prompt as the model saw it, transcript, reply, timing, model, delivery and tool calls',
      security: bearerSecurity,
      request: { params: idParam('Run', 'id') },
      responses: { 200: json(runDetailSchema, 'The run'), 404: json(errorSchema, 'No such run'), 401: errors[401] },
    }),
    async (c) => {
      const detail = await runDetail({ store, delivery: deps.delivery }, c.req.valid('param').id);
      return c.json(
        {
          ...runView(detail.run),
          tools: countsOfCalls(detail.toolCalls),
          times: runTimes(detail.run, detail.toolCalls, Date.now()),
          toolLimit: toolLimitOf(detail.toolCalls, deps.config.tools.maxToolCalls),
          awaitingSignIn: detail.awaitingSignIn,
          // a recipient's credential (an interaction token) stays out of view
          action: { ...detail.run.action, ...(typeof detail.run.action.to === 'string' && { to: shownRecipient(detail.run.action.to) }) },
          delivery: detail.delivery,
          prompt: detail.prompt,
          model: detail.model,
          transcript: messagesView(detail.transcript),
          receipt: detail.receipt ? receiptView(detail.receipt) : null,
          fire: detail.fire ? await fireView(store, detail.fire) : null,
          reruns: detail.reruns,
          toolCalls: detail.toolCalls.map(toolCallView),
        },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/events',
      tags: ['sessions'],
      summary: 'System events (the main session queue and any other session)',
      security: bearerSecurity,
      request: {
        query: listQuery.extend({
          session: z.string().optional().openapi(q('session', 'Session key, e.g. main.')),
          status: z.enum(['pending', 'processing', 'done', 'dropped']).optional().openapi(q('status', 'Event status.')),
          mapping: z.string().optional().openapi(q('mapping', 'Events enqueued by requests this mapping handled (wake actions).')),
        }).strict(),
      },
      responses: { 200: json(page(eventSchema).extend({ dropped: z.number().int().optional().openapi({ description: 'Events the 20-pending cap of the main session dropped (all time).' }) }), 'One page of events'), ...errors },
    }),
    async (c) => {
      const query = c.req.valid('query');
      const rows = await store.browse.events({ ...query, ...list(query), mappingId: query.mapping });
      // the main session keeps 20 pending at most: how many a burst pushed out, though every sender got 200
      const dropped = deps.probe ? (await deps.probe.counts()).eventsDropped : undefined;
      return c.json({ ...pageOf(rows, query.limit, (e) => [e.createdAt, e.id], eventView), ...(dropped !== undefined && { dropped }) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/deliveries',
      tags: ['deliveries'],
      summary: 'Deliveries of replies to chat channels (the outbox)',
      security: bearerSecurity,
      request: {
        query: listQuery.extend({
          status: z.enum(deliveryStatuses).optional().openapi(q('status', 'Delivery status.')),
          channel: z.string().optional().openapi(q('channel', 'Channel plugin id.')),
          run: z.string().optional().openapi(q('run', 'Run id.')),
          agent: z.string().optional().openapi(q('agent', 'Agent id.')),
          session: z.string().optional().openapi(q('session', 'Session key of the reply (main: heartbeat replies).')),
          mapping: z.string().optional().openapi(q('mapping', 'Replies of runs whose action this mapping resolved.')),
        }).strict(),
      },
      responses: { 200: json(page(deliveryRowSchema), 'One page of deliveries, each with its run named'), ...errors },
    }),
    async (c) => {
      const query = c.req.valid('query');
      const rows = await store.browse.deliveries({ ...query, ...list(query), runId: query.run, agentId: query.agent, sessionKey: query.session, mappingId: query.mapping });
      const runs = await runLabels(store, rows.map((d) => d.runId));
      return c.json(pageOf(rows, query.limit, (d) => [d.createdAt, d.id], (d) => ({ ...deliveryView(d), run: (d.runId && runs.get(d.runId)) || null })), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/sessions',
      tags: ['sessions'],
      summary: 'Sessions, most recently active first, each from its first run on (before it has messages)',
      security: bearerSecurity,
      request: {
        query: listQuery
          .extend({
            prefix: z.string().optional().openapi(q('prefix', 'Key prefix, e.g. hook:')),
            agent: z.string().optional().openapi(q('agent', "The session's agent: its first message's; the main session is the default agent's.")),
          })
          .strict(),
      },
      responses: { 200: json(page(sessionSchema), 'One page of sessions'), ...errors },
    }),
    async (c) => {
      const query = c.req.valid('query');
      const rows = await store.browse.sessions({ ...query, ...list(query), agentId: query.agent, defaultAgentId: defaultAgent(deps.config).id });
      return c.json(pageOf(rows, query.limit, (s) => [s.lastAt, s.key], sessionView), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/sessions/{key}/messages',
      tags: ['sessions'],
      summary: "A session's messages, oldest first",
      security: bearerSecurity,
      request: {
        params: z.object({ key: z.string().min(1).openapi({ param: { name: 'key', in: 'path' } }) }),
        query: z.object({ limit: listQuery.shape.limit.transform((n) => (n === 100 ? 1000 : n)) }).partial().strict(),
      },
      responses: { 200: json(z.object({ data: z.array(messageSchema) }), 'The messages'), ...errors },
    }),
    async (c) => {
      const { key } = c.req.valid('param');
      const { limit } = c.req.valid('query');
      const messages = await store.sessions.messages(key, limit ?? 1000);
      return c.json({ data: messagesView(messages) }, 200);
    },
  );
}
