import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { HeraldError } from '../../errors.js';
import type { AgentAction } from '../../mappings/hook-action.js';
import type { DeliveryActions } from '../../runtime/delivery/delivery-actions.js';
import type { Store } from '../../store/port.js';
import { bearerSecurity } from './admin-app.js';
import { bulkDeliveryRequestSchema, bulkDeliveryResultSchema, deliveryDetailSchema, deliverySchema, errorSchema, idParam, receiptSchema, runSchema } from './admin-schemas.js';
import type { FailedDeliveryFilter } from '../../store/port.js';
import { receiptView, runView } from './views/admin-views.js';
import type { OperatorDeps } from './operator-deps.js';

const json = <T extends z.ZodTypeAny>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description });
const refused = (what: string) => ({
  401: json(errorSchema, 'Not signed in'),
  403: json(errorSchema, 'A console request without its CSRF token'),
  404: json(errorSchema, `No such ${what}`),
  409: json(errorSchema, `The ${what} is not in a state that allows this`),
});

/** a bulk request's filter in the store's words */
const failedFilter = (body: z.infer<typeof bulkDeliveryRequestSchema>): FailedDeliveryFilter => ({
  channel: body.channel,
  mappingId: body.mapping,
  since: body.since,
  until: body.until,
  error: body.error,
});

/** What an operator can do about what happened: re-run, cancel, retry, abandon, replay. */
export function registerActionRoutes(app: OpenAPIHono, deps: { store: Store; delivery: DeliveryActions; operator: OperatorDeps }): void {
  const { store, operator } = deps;
  const bulk = (action: 'retry' | 'abandon', summary: string) =>
    createRoute({
      method: 'post',
      path: `/deliveries/${action}`,
      tags: ['deliveries'],
      summary,
      security: bearerSecurity,
      request: { body: { content: { 'application/json': { schema: bulkDeliveryRequestSchema } }, required: true } },
      responses: {
        200: json(bulkDeliveryResultSchema, 'How many failed deliveries matched (dryRun) or changed'),
        400: json(errorSchema, 'A field of the filter is invalid (named)'),
        401: json(errorSchema, 'Not signed in'),
        403: json(errorSchema, 'A console request without its CSRF token'),
      },
    });

  app.openapi(
    bulk('retry', 'Retry every failed delivery matching a filter (channel, mapping, time range, error text) that has a target and no fallback sent in its place; dryRun counts them first'),
    async (c) => {
      const body = c.req.valid('json');
      return c.json(await deps.delivery.retryMatching(failedFilter(body), body.dryRun), 200);
    },
  );

  app.openapi(
    bulk('abandon', 'Abandon every failed delivery matching a filter (channel, mapping, time range, error text); dryRun counts them first'),
    async (c) => {
      const body = c.req.valid('json');
      return c.json(await deps.delivery.abandonMatching(failedFilter(body), body.dryRun), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/deliveries/{id}',
      tags: ['deliveries'],
      summary: "One delivery and its fallback chain (the reply's first delivery, then each fallback)",
      security: bearerSecurity,
      request: { params: idParam('Delivery', 'id') },
      responses: { 200: json(deliveryDetailSchema, 'The delivery and its chain'), 401: json(errorSchema, 'Not signed in'), 404: json(errorSchema, 'No such delivery') },
    }),
    async (c) => c.json((await deps.delivery.detail(c.req.valid('param').id)) as z.infer<typeof deliveryDetailSchema>, 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/runs/{id}/rerun',
      tags: ['runs'],
      summary: 'Re-run a run: a new run of the same action, linked to the old one (rerunOf)',
      security: bearerSecurity,
      request: { params: idParam('Run', 'id') },
      responses: { 202: json(z.object({ ok: z.literal(true), runId: z.string(), rerunOf: z.string() }), 'The new run is queued'), ...refused('run') },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      const run = await store.runs.get(id);
      if (!run) throw new HeraldError('HERALD_NOT_FOUND', 'run not found');
      // the recorded action as validated at intake: the same message, session key, model and delivery
      const runId = await operator.runs.submit(run.action as unknown as AgentAction, { rerunOf: run.id });
      return c.json({ ok: true as const, runId, rerunOf: run.id }, 202);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/runs/{id}/cancel',
      tags: ['runs'],
      summary: 'Cancel a queued run, or one waiting for approval (a running one is not interrupted: 409)',
      security: bearerSecurity,
      request: { params: idParam('Run', 'id') },
      responses: { 200: json(runSchema, 'The cancelled run'), ...refused('run') },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      const run = await store.runs.get(id);
      if (!run) throw new HeraldError('HERALD_NOT_FOUND', 'run not found');
      if (!(await operator.runs.cancel(id))) throw new HeraldError('HERALD_RUN_NOT_CANCELLABLE', `run is ${(await store.runs.get(id))?.status ?? run.status}, not queued or waiting for approval`);
      return c.json(runView((await store.runs.get(id))!), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/deliveries/{id}/retry',
      tags: ['deliveries'],
      summary: 'Retry a failed delivery: pending again, attempts counted afresh',
      security: bearerSecurity,
      request: { params: idParam('Delivery', 'id') },
      responses: { 200: json(deliverySchema, 'The delivery, pending'), ...refused('delivery') },
    }),
    async (c) => c.json((await deps.delivery.retry(c.req.valid('param').id)) as z.infer<typeof deliverySchema>, 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/deliveries/{id}/abandon',
      tags: ['deliveries'],
      summary: 'Abandon a pending or failed delivery: never sent nor retried again',
      security: bearerSecurity,
      request: { params: idParam('Delivery', 'id') },
      responses: { 200: json(deliverySchema, 'The delivery, abandoned'), ...refused('delivery') },
    }),
    async (c) => c.json((await deps.delivery.abandon(c.req.valid('param').id)) as z.infer<typeof deliverySchema>, 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/receipts/{id}/replay',
      tags: ['requests'],
      summary: 'Replay a retained request through the current mappings (a new receipt, replayOf the old one)',
      security: bearerSecurity,
      request: { params: idParam('Receipt', 'id') },
      responses: { 200: json(receiptSchema, "The replay's receipt (its status is what the request got this time)"), ...refused('receipt') },
    }),
    async (c) => c.json(receiptView(await operator.replay(c.req.valid('param').id)), 200),
  );
}
