import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { streamSSE } from 'hono/streaming';
import { isoTime as iso } from '../../iso-time.js';
import type { MinuteCount, Store } from '../../store/port.js';
import type { StoreProbe } from '../../store/store-probe.js';
import { bearerSecurity } from './admin-app.js';
import { errorSchema, overviewSchema } from './admin-schemas.js';

const json = <T extends z.ZodTypeAny>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description });
/** how often the live stream looks at the store: the store is the truth, also for work another replica did */
const STREAM_EVERY_MS = 1000;
const WINDOW_MS = 60 * 60_000;

const minutes = (rows: MinuteCount[]) => rows.map((r) => ({ minute: iso(r.minute), total: r.total, failed: r.failed }));

/** The Overview page's numbers, and the same numbers live as server-sent events. */
export function registerOverviewRoutes(app: OpenAPIHono, deps: { store: Store; probe?: StoreProbe }): void {
  const overview = async (): Promise<z.infer<typeof overviewSchema>> => {
    const since = Date.now() - WINDOW_MS;
    const [requests, runs, deliveries, counts, retainedBytes] = await Promise.all([
      deps.store.receipts.perMinute(since),
      deps.store.browse.runsPerMinute(since),
      deps.store.browse.deliveriesPerMinute(since),
      deps.probe?.counts(),
      deps.store.receipts.retainedBytes(),
    ]);
    return {
      perMinute: { requests: minutes(requests), runs: minutes(runs), deliveries: minutes(deliveries) },
      queues: {
        runsQueued: counts?.runs.queued ?? 0,
        runsRunning: counts?.runs.running ?? 0,
        eventsPending: counts?.eventsPending ?? 0,
        deliveries: counts?.deliveries ?? {},
      },
      retainedBytes,
    };
  };

  app.openapi(
    createRoute({
      method: 'get',
      path: '/overview',
      tags: ['overview'],
      summary: 'Requests, runs and deliveries per minute (last hour), failures, queue depths, retained bytes',
      security: bearerSecurity,
      responses: { 200: json(overviewSchema, 'The overview'), 401: json(errorSchema, 'Not signed in') },
    }),
    async (c) => c.json(await overview(), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/stream',
      tags: ['overview'],
      summary: 'Server-sent events: `overview` (the Overview body) whenever anything changed, checked every second',
      security: bearerSecurity,
      responses: { 200: { content: { 'text/event-stream': { schema: z.string() } }, description: 'An endless event stream' }, 401: json(errorSchema, 'Not signed in') },
    }),
    ((c: Parameters<typeof streamSSE>[0]) =>
      streamSSE(c, async (stream) => {
        let last = '';
        let closed = false;
        stream.onAbort(() => {
          closed = true;
        });
        while (!closed && !stream.aborted) {
          try {
            const data = JSON.stringify(await overview());
            if (data !== last) {
              last = data;
              await stream.writeSSE({ event: 'overview', data });
            } else {
              await stream.write(': idle\n\n'); // a comment: keeps proxies from timing the stream out
            }
          } catch {
            break; // the client left, or the store is closing: the browser's EventSource reconnects by itself
          }
          await stream.sleep(STREAM_EVERY_MS);
        }
      })) as never,
  );
}
