import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { streamSSE } from 'hono/streaming';
import { isoTime as iso } from '../../time/iso-time.js';
import { LiveFeed } from '../../runtime/operator/live-feed.js';
import { pendingApprovals } from '../../runtime/approvals/approval-context.js';
import type { MinuteCount, Store } from '../../store/port.js';
import type { StoreProbe } from '../../store/contracts/store-probe.js';
import type { ToolServerHealth } from '../../tools/mcp/server-health.js';
import { bearerSecurity } from './admin-app.js';
import { errorSchema, overviewSchema } from './admin-schemas.js';
import { toolServerView } from './views/tool-server-view.js';
import { troubleView, type TroubleSources } from './views/trouble-view.js';

const json = <T extends z.ZodTypeAny>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description });
/** a comment this often on an idle stream keeps proxies from timing it out (it reads nothing) */
const KEEP_ALIVE_MS = 25_000;
const WINDOW_MS = 60 * 60_000;
/** the waiting approvals counted: past it the Overview says "100+" (the Approvals page lists them) */
const APPROVALS_COUNTED = 100;

type Overview = z.infer<typeof overviewSchema>;

const minutes = (rows: MinuteCount[]) => rows.map((r) => ({ minute: iso(r.minute), total: r.total, failed: r.failed }));

/** The Overview page's numbers and tool servers, and the same live as server-sent events. */
export function registerOverviewRoutes(app: OpenAPIHono, deps: { store: Store; probe?: StoreProbe; toolServers?: () => ToolServerHealth[]; trouble?: Omit<TroubleSources, 'toolServers'> }): void {
  const overview = async (): Promise<Overview> => {
    const since = Date.now() - WINDOW_MS;
    const [requests, runs, deliveries, counts, retainedBytes, openAlerts, others, waiting] = await Promise.all([
      deps.store.receipts.perMinute(since),
      deps.store.browse.runsPerMinute(since),
      deps.store.browse.deliveriesPerMinute(since),
      deps.probe?.counts(),
      deps.store.receipts.retainedBytes(),
      deps.store.alerts.open(),
      deps.trouble?.others?.(),
      pendingApprovals(deps.store, APPROVALS_COUNTED + 1),
    ]);
    return {
      trouble: troubleView(openAlerts, { ...deps.trouble, toolServers: deps.toolServers }, others),
      perMinute: { requests: minutes(requests), runs: minutes(runs), deliveries: minutes(deliveries) },
      queues: {
        runsQueued: counts?.runs.queued ?? 0,
        runsRunning: counts?.runs.running ?? 0,
        eventsPending: counts?.eventsPending ?? 0,
        deliveries: counts?.deliveries ?? {},
      },
      retainedBytes,
      toolServers: (deps.toolServers?.() ?? []).map(toolServerView),
      approvals: { waiting: Math.min(waiting.length, APPROVALS_COUNTED), capped: waiting.length > APPROVALS_COUNTED, oldestAt: iso(waiting[0]?.call.createdAt ?? null) },
    };
  };

  app.openapi(
    createRoute({
      method: 'get',
      path: '/overview',
      tags: ['overview'],
      summary:
        'Trouble first (open alerts, the last refused reload, keys waiting for a restart, mappings that failed to load, unhealthy model providers, channels and MCP servers), the tool calls waiting for a person, then requests, runs and deliveries per minute (last hour), failures, queue depths, retained bytes, the MCP servers\' health',
      security: bearerSecurity,
      responses: { 200: json(overviewSchema, 'The overview'), 401: json(errorSchema, 'Not signed in') },
    }),
    async (c) => c.json(await overview(), 200),
  );

  // one feed per app, made at the first client: the route declarations are also read without a store (the OpenAPI document)
  let feed: LiveFeed<Overview> | undefined;
  const live = () => (feed ??= new LiveFeed(deps.store.signals, overview));

  app.openapi(
    createRoute({
      method: 'get',
      path: '/stream',
      tags: ['overview'],
      summary:
        'Server-sent events: `overview` (the Overview body) at once and after every change; `change` ({kinds}: receipts, runs, events, deliveries, sessions, usage, tools, alerts, trouble) naming what changed. Pushed by the store\'s change feed (across replicas on PostgreSQL; `tools`: an MCP server\'s state or tools changed; `alerts`: an alert opened or resolved; `trouble`: a reload refused or applied, a model provider, channel or MCP server failed or recovered on any replica), never polled',
      security: bearerSecurity,
      responses: { 200: { content: { 'text/event-stream': { schema: z.string() } }, description: 'An endless event stream' }, 401: json(errorSchema, 'Not signed in') },
    }),
    ((c: Parameters<typeof streamSSE>[0]) =>
      streamSSE(c, async (stream) => {
        // what arrived since the last write: a slow client gets the latest snapshot, not a backlog
        const kinds = new Set<string>();
        let latest: Overview | undefined;
        let wake: (() => void) | undefined;
        const off = live().subscribe((message) => {
          for (const kind of message.kinds) kinds.add(kind);
          latest = message.snapshot ?? latest;
          wake?.();
        });
        stream.onAbort(() => wake?.());
        try {
          await stream.writeSSE({ event: 'overview', data: JSON.stringify(await overview()) });
          while (!stream.aborted) {
            if (kinds.size === 0 && latest === undefined) {
              let timer: NodeJS.Timeout | undefined;
              const woke = await new Promise<boolean>((resolve) => {
                wake = () => resolve(true);
                timer = setTimeout(() => resolve(false), KEEP_ALIVE_MS);
              });
              clearTimeout(timer);
              wake = undefined;
              if (stream.aborted) break;
              if (!woke) {
                await stream.write(': keep-alive\n\n');
                continue;
              }
            }
            if (kinds.size > 0) {
              const data = JSON.stringify({ kinds: [...kinds] });
              kinds.clear();
              await stream.writeSSE({ event: 'change', data });
            }
            if (latest !== undefined) {
              const data = JSON.stringify(latest);
              latest = undefined;
              await stream.writeSSE({ event: 'overview', data });
            }
          }
        } catch {
          // the client left, or the store is closing: the browser's EventSource reconnects by itself
        } finally {
          off();
        }
      })) as never,
  );
}
