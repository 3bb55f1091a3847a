import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { ALERT_CONDITIONS } from '../../config/sections/alerts-schema.js';
import type { AlertRecord, Store } from '../../store/port.js';
import { isoTime as iso } from '../../time/iso-time.js';
import { bearerSecurity } from './admin-app.js';
import { errorSchema, listQuery, page } from './admin-schemas.js';
import { decodeCursor, pageOf } from './views/admin-views.js';

const q = (name: string, description: string) => ({ param: { name, in: 'query' as const }, description });

export const alertSchema = z
  .object({
    id: z.string(),
    condition: z.string().openapi({ description: 'The rule that raised it: delivery.failed, runs.failing, source.silent, queue.stale, outbox.stale, watcher.unhealthy, tools.unhealthy, store.unreachable, budget.exceeded, schedule.failing, schedule.missed.' }),
    subject: z.string().openapi({ description: 'What it is about: a mapping, an agent, a channel, a service, a replica.' }),
    summary: z.string(),
    status: z.enum(['open', 'resolved']),
    notified: z.boolean().openapi({ description: 'false: raised within the cooldown of an earlier alert, so stored but not sent.' }),
    incidentKey: z.string(),
    raisedAt: z.string(),
    resolvedAt: z.string().nullable(),
  })
  .openapi('Alert');

const alertView = (a: AlertRecord) => ({
  id: a.id,
  condition: a.condition,
  subject: a.subject,
  summary: a.summary,
  status: a.status,
  notified: a.notified,
  incidentKey: a.incidentKey,
  raisedAt: iso(a.raisedAt)!,
  resolvedAt: iso(a.resolvedAt),
});

/** GET /admin/alerts: every incident the alert rules raised, newest first */
export function registerAlertRoutes(app: OpenAPIHono, deps: { store: Store }): void {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/alerts',
      tags: ['alerts'],
      summary: 'Alerts raised by the alert rules, open and resolved',
      security: bearerSecurity,
      request: {
        query: listQuery
          .extend({
            status: z.enum(['open', 'resolved']).optional().openapi(q('status', 'open or resolved.')),
            condition: z.enum(ALERT_CONDITIONS).optional().openapi(q('condition', 'The rule: delivery.failed, runs.failing, source.silent, queue.stale, outbox.stale, watcher.unhealthy, tools.unhealthy, store.unreachable, budget.exceeded, schedule.failing or schedule.missed.')),
            subject: z.string().optional().openapi(q('subject', 'What it is about (a mapping id, a channel, a service).')),
          })
          .strict(),
      },
      responses: {
        200: { content: { 'application/json': { schema: page(alertSchema) } }, description: 'One page of alerts' },
        400: { content: { 'application/json': { schema: errorSchema } }, description: 'Invalid parameter' },
        401: { content: { 'application/json': { schema: errorSchema } }, description: 'Not signed in' },
      },
    }),
    async (c) => {
      const query = c.req.valid('query');
      const rows = await deps.store.alerts.list({ ...query, limit: query.limit + 1, after: decodeCursor(query.cursor) });
      return c.json(pageOf(rows, query.limit, (a) => [a.raisedAt, a.id], alertView), 200);
    },
  );
}
