import { z } from 'zod';
import { okFalseSchema } from './common-schemas.js';
import { defineRoutes, type ResponseDoc } from './route-doc.js';

const isoTime = z.string().nullable().describe('ISO-8601 time, or null.');
export const limitQuerySchema = z.object({ limit: z.coerce.number().int().min(1).max(1000).optional().describe('At most this many, 1 to 1000.') });

export const deliveryViewSchema = z.object({
  id: z.string(),
  runId: z.string().nullable(),
  kind: z.string(),
  status: z.enum(['pending', 'sending', 'delivered', 'failed']),
  channel: z.string(),
  to: z.string().nullable(),
  attempts: z.number().int(),
  partsSent: z.number().int(),
  lastError: z.string().nullable(),
  createdAt: isoTime,
  updatedAt: isoTime,
  nextAttemptAt: isoTime,
  deliveredAt: isoTime,
});

export const runViewSchema = z.object({
  id: z.string(),
  status: z.enum(['queued', 'running', 'succeeded', 'failed', 'timed_out']),
  agentId: z.string(),
  name: z.string(),
  sessionKey: z.string(),
  message: z.string(),
  reply: z.string().nullable(),
  error: z.string().nullable(),
  createdAt: isoTime,
  startedAt: isoTime,
  finishedAt: isoTime,
  delivery: z.record(z.string(), z.unknown()).describe('The delivery of the reply: its state, or why there is none.'),
});

export const eventsViewSchema = z.object({
  data: z.array(z.object({ id: z.number().int(), text: z.string(), status: z.enum(['pending', 'processing', 'done', 'dropped']), createdAt: isoTime })),
  dropped: z.number().int().optional().describe('Events dropped because the main session already held 20 pending (all time, from the store).'),
});

const adminErrors: Record<number, ResponseDoc> = {
  400: { description: 'A bad query parameter (named).', schema: okFalseSchema },
  401: { description: 'Missing or wrong gateway token.', schema: okFalseSchema },
  429: { description: 'Too many failed authentications from this address.', schema: okFalseSchema },
};
const notFound: ResponseDoc = { description: 'Not found.', schema: okFalseSchema };

export const reloadResultSchema = z.object({
  ok: z.literal(true),
  changed: z.array(z.string()).describe('Config keys whose new value is in effect, e.g. hooks.mappings, agents.list.'),
  restartRequired: z.array(z.string()).describe('Changed keys that take effect only after a restart (port, host, storage, ...).'),
});

export const adminDocs = defineRoutes('admin', [
  {
    method: 'post', path: '/reload', summary: 'Reload the config file (herald reload)', security: 'gatewayToken',
    responses: {
      200: { description: 'Reloaded.', schema: reloadResultSchema },
      401: adminErrors[401]!,
      422: { description: 'The file has faults (in `details`); the running config stays.', schema: okFalseSchema },
      429: adminErrors[429]!,
    },
  },
  {
    method: 'get', path: '/runs/{id}', summary: 'One agent run', security: 'gatewayToken',
    request: { params: z.object({ id: z.string() }) },
    responses: { 200: { description: 'The run and its delivery.', schema: runViewSchema }, ...adminErrors, 404: notFound },
  },
  {
    method: 'get', path: '/sessions/{key}/messages', summary: 'The messages of a session', security: 'gatewayToken',
    request: { params: z.object({ key: z.string() }), query: limitQuerySchema },
    responses: {
      200: { description: 'Oldest first.', schema: z.object({ data: z.array(z.object({ role: z.string(), content: z.string(), createdAt: isoTime })) }) },
      ...adminErrors,
    },
  },
  {
    method: 'get', path: '/events', summary: 'System events of a session', security: 'gatewayToken',
    request: { query: limitQuerySchema.extend({ session: z.string().optional().describe('Session key (default main).') }) },
    responses: { 200: { description: 'The events.', schema: eventsViewSchema }, ...adminErrors },
  },
  {
    method: 'get', path: '/deliveries', summary: 'Deliveries of the outbox', security: 'gatewayToken',
    request: { query: limitQuerySchema.extend({ status: z.enum(['pending', 'sending', 'delivered', 'failed']).optional() }) },
    responses: { 200: { description: 'Newest first.', schema: z.object({ data: z.array(deliveryViewSchema) }) }, ...adminErrors },
  },
  {
    method: 'post', path: '/deliveries/{id}/retry', summary: 'Send a failed delivery again', security: 'gatewayToken',
    request: { params: z.object({ id: z.string() }) },
    responses: { 200: { description: 'The delivery, pending again.', schema: deliveryViewSchema.loose() }, ...adminErrors, 404: notFound, 409: { description: 'Not in a state that can be retried.', schema: okFalseSchema } },
  },
]);
