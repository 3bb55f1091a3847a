import { Hono } from 'hono';
import { HeraldError } from '../../errors.js';
import type { StoreProbe } from '../../store/store-probe.js';
import type { HeraldConfig } from '../../config/schema.js';
import type { ReplyDelivery } from '../../runtime/reply-delivery.js';
import type { DeliveryStatus, Store } from '../../store/port.js';
import { deliveryView } from '../../runtime/delivery-view.js';
import { bearerToken } from '../bearer-token.js';
import type { FailedAuthLimiter } from '../failed-auth-limiter.js';
import { checkToken } from '../token-auth.js';
import { isoTime as iso } from '../../iso-time.js';

export interface AdminRoutesDeps {
  config: HeraldConfig;
  store: Store;
  delivery: ReplyDelivery;
  limiter: FailedAuthLimiter;
  /** the store's counts: the dropped events shown beside the events list */
  probe?: StoreProbe;
}

const deliveryStatuses: DeliveryStatus[] = ['pending', 'sending', 'delivered', 'failed'];

function limitParam(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1000) throw new HeraldError('HERALD_INVALID_FIELD', 'limit must be an integer from 1 to 1000', { param: 'limit' });
  return n;
}

/** What an operator needs to see what happened; behind the gateway token only. */
export function adminRoutes(deps: AdminRoutesDeps): Hono {
  const app = new Hono();
  app.use('*', async function adminAuth(c, next) {
    checkToken(c, deps.limiter, bearerToken(c), deps.config.gateway.auth.token);
    await next();
  });

  app.get('/runs/:id', async (c) => {
    const run = await deps.store.runs.get(c.req.param('id'));
    if (!run) throw new HeraldError('HERALD_NOT_FOUND', 'run not found');
    return c.json({
      id: run.id,
      status: run.status,
      agentId: run.agentId,
      name: run.name,
      sessionKey: run.sessionKey,
      message: run.message,
      reply: run.reply,
      error: run.error,
      createdAt: iso(run.createdAt),
      startedAt: iso(run.startedAt),
      finishedAt: iso(run.finishedAt),
      delivery: await deps.delivery.describe(run),
    });
  });

  app.get('/sessions/:key/messages', async (c) => {
    const messages = await deps.store.sessions.messages(c.req.param('key'), limitParam(c.req.query('limit'), 1000));
    return c.json({ data: messages.map((m) => ({ role: m.role, content: m.content, createdAt: iso(m.createdAt) })) });
  });

  app.get('/events', async (c) => {
    const events = await deps.store.events.list(c.req.query('session') ?? 'main', limitParam(c.req.query('limit'), 100));
    // the main session keeps 20 pending at most: how many a burst pushed out, though every sender got 200
    const dropped = deps.probe ? (await deps.probe.counts()).eventsDropped : undefined;
    return c.json({ data: events.map((e) => ({ id: e.id, text: e.text, status: e.status, createdAt: iso(e.createdAt) })), ...(dropped !== undefined && { dropped }) });
  });

  app.get('/deliveries', async (c) => {
    const status = c.req.query('status');
    if (status !== undefined && !deliveryStatuses.includes(status as DeliveryStatus)) {
      throw new HeraldError('HERALD_INVALID_FIELD', `status must be one of ${deliveryStatuses.join(', ')}`, { param: 'status' });
    }
    const deliveries = await deps.store.deliveries.list({ status: status as DeliveryStatus | undefined, limit: limitParam(c.req.query('limit'), 100) });
    return c.json({ data: deliveries.map(deliveryView) });
  });

  app.post('/deliveries/:id/retry', async (c) => c.json(await deps.delivery.retry(c.req.param('id'))));

  return app;
}
