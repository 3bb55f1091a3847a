import type { OpenAPIHono } from '@hono/zod-openapi';
import { Hono, type Context } from 'hono';
import type { Logger } from 'pino';
import type { HeraldConfig } from '../config/schema.js';
import { HeraldError } from '../errors.js';
import type { MappingsEngine } from '../mappings/mappings-engine.js';
import type { HeraldMetrics } from '../metrics/herald-metrics.js';
import type { DeliveryActions } from '../runtime/delivery/delivery-actions.js';
import type { OperatorDeps } from './admin/operator-deps.js';
import { ConsoleSessions } from './console/console-session.js';
import type { Store } from '../store/port.js';
import type { StoreProbe } from '../store/contracts/store-probe.js';
import type { ToolServerHealth } from '../tools/mcp/server-health.js';
import type { TroubleSources } from './admin/views/trouble-view.js';
import type { ToolSignIns } from '../tools/mcp/oauth/tool-sign-ins.js';
import { oauthRoutes } from './oauth-routes.js';
import type { ReloadResult } from './reload-result.js';
import { reloadRoute } from './admin/reload-route.js';
import { errorHandler, errorResponse } from './error-handler.js';
import { clientAddressOf } from './request/client-address.js';
import { FailedAuthLimiter } from './auth/failed-auth-limiter.js';
import { mountLazily } from './server/lazy-routes.js';
import { honoDoor } from './exchange/hono-door.js';
import type { ExchangeSurface } from './exchange/exchange-pipeline.js';
import type { AdmittedHook } from './hooks/answer-hook.js';
import type { ApiPrincipal } from '../accounts/api-keys.js';
import { CHAT_COMPLETIONS_PATH } from './v1/chat/chat-listener.js';
import { metricsRoute } from './metrics-route.js';
import { readinessRoute, type DegradedComponents } from './readiness-route.js';
import { requestContext } from './request/request-context.js';
import { LIVENESS_ANSWER } from './server/liveness-listener.js';
import { SurfaceRouter } from './server/surface-router.js';
import { TrustedProxies } from './request/trusted-proxies.js';
import { activeHooksPrefix } from './request/request-surface.js';
import type { McpRouteDeps } from './mcp/mcp-route.js';
import { AUTH_SERVER_METADATA_PATH, AUTH_SERVER_PATHS, protectedResourceRoute, RESOURCE_METADATA_PATH } from './mcp/protected-resource.js';

export interface AppDeps {
  config: HeraldConfig;
  logger: Logger;
  store: Store;
  engine: MappingsEngine;
  delivery: DeliveryActions;
  /**
   * extra route groups mounted by later areas (the platform API), by path prefix: each built, and
   * its modules loaded, on the first request under its path (chat completions, the hot path, are a
   * surface of their own, answered without it)
   */
  mounts?: { path: string; build: () => Promise<Hono> }[];
  /** the store's liveness and counts: /readyz and the store gauges */
  probe?: StoreProbe;
  /** components working less than fully, named in /readyz's 200 answer (MCP servers down) */
  degraded?: () => DegradedComponents | undefined;
  /** the MCP servers' health, on the console's Overview */
  toolServers?: () => ToolServerHealth[];
  /** signing in to MCP servers: /oauth/callback, /oauth/client-metadata.json, POST /admin/tools/servers/:name/authorize */
  signIns?: ToolSignIns;
  /** this process's records of what went wrong (a refused reload, unhealthy providers and channels), on the Overview */
  trouble?: Omit<TroubleSources, 'toolServers'>;
  /** reloads the config file (POST /admin/reload) */
  reload?: (reason?: string) => Promise<ReloadResult>;
  /** when given (gateway.metrics.enabled), requests are counted and GET /metrics serves them */
  metrics?: HeraldMetrics;
  /** the operator's use cases: the admin API's lists and actions, and the console */
  operator?: OperatorDeps;
  /** the hot surfaces, one pipeline each, whose Node doors `herald serve` opens beside these hono ones (gateway-server.ts) */
  surfaces: HotSurfaces;
  /** /mcp (platform.mcp.enabled): what its sessions need; its module and the MCP SDK load with its first request */
  mcp?: McpRouteDeps;
}

/** the hot surfaces: the webhooks (when enabled), chat completions (when /v1 is mounted) */
export interface HotSurfaces {
  hooks?: ExchangeSurface<AdmittedHook>;
  chat?: ExchangeSurface<ApiPrincipal>;
}

/** The HTTP face of herald. It never listens: `serve` does, tests use `app.request()`. */
export function createApp(deps: AppDeps): Hono {
  const prefix = activeHooksPrefix(deps.config);
  const app = new Hono(prefix ? { router: new SurfaceRouter(prefix) } : {});
  // the hot surfaces' doors come before the middleware, whose stages their pipelines run themselves
  const proxies = new TrustedProxies(deps.config.gateway.trustedProxies);
  const doorDeps = { logger: deps.logger, metrics: deps.metrics?.http, proxies, hooksPrefix: prefix };
  const { hooks, chat } = deps.surfaces;
  if (hooks && deps.config.hooks.enabled) app.all(`${prefix}/*`, honoDoor(hooks, doorDeps));
  if (chat) app.post(CHAT_COMPLETIONS_PATH, honoDoor(chat, doorDeps));
  // one limiter per surface: wrong hook tokens must not lock operators out of /admin and /metrics
  const operatorLimiter = new FailedAuthLimiter('operator', deps.logger);
  app.use('*', requestContext(deps.logger, deps.metrics?.http, prefix));
  app.use('*', clientAddressOf(proxies));
  const onError = errorHandler(deps.logger);
  app.onError(onError);
  app.notFound((c) => errorResponse(c, new HeraldError('HERALD_NOT_FOUND')));

  app.get('/healthz', (c) => c.json(LIVENESS_ANSWER));
  if (deps.probe) app.get('/readyz', readinessRoute({ probe: deps.probe, logger: deps.logger, degraded: deps.degraded }));
  // the document's schemas and route declarations are loaded with its first request
  app.get('/openapi.json', async (c, next) => (await import('./openapi/openapi-route.js')).openApiRoute(deps)(c, next));
  if (deps.metrics) app.get('/metrics', metricsRoute({ config: deps.config, metrics: deps.metrics, limiter: operatorLimiter }));
  if (deps.signIns) oauthRoutes(app, deps.signIns);
  if (deps.reload) app.post('/admin/reload', reloadRoute({ config: deps.config, limiter: operatorLimiter, reload: deps.reload }));
  const token = deps.config.gateway.auth.token;
  const sessions = token ? new ConsoleSessions(token, deps.config.gateway.console.sessionHours * 3_600_000, deps.store.state) : undefined;
  // GET /admin/openapi.json's document, made (and its modules loaded) on its first request
  const openApiDocument = async (admin: OpenAPIHono) => (await import('./openapi/admin-openapi.js')).adminOpenApiDocument(admin);
  // the admin API and the console are built (and their modules loaded) on their first request, not at start
  mountLazily(app, '/admin', async () => (await import('./admin/admin-routes.js')).adminRoutes({ ...deps, limiter: operatorLimiter, sessions, openApiDocument }), onError);
  if (deps.operator && deps.config.gateway.console.enabled) {
    mountLazily(app, '/console', async () => (await import('./console/console-routes.js')).consoleRoutes({ config: deps.config, limiter: operatorLimiter, sessions }), onError);
    // a browser pointed at the gateway's address lands on the console, not on a JSON 404
    app.get('/', (c) => c.redirect('/console', 302));
  }
  const { mcp } = deps;
  if (mcp && deps.config.platform.mcp.enabled) {
    const oauth = () => deps.config.platform.mcp.oauth.enabled && mcp.grants !== undefined;
    app.get(RESOURCE_METADATA_PATH, protectedResourceRoute({ oauth }));
    mountLazily(app, '/mcp', async () => (await import('./mcp/mcp-route.js')).mcpRoutes(mcp), onError);
    // herald's authorization server (platform.mcp.oauth), made with the MCP SDK's (express) on its first request
    let authServer: Promise<(c: Context) => Promise<Response>> | undefined;
    const grants = mcp.grants;
    for (const path of [AUTH_SERVER_METADATA_PATH, ...AUTH_SERVER_PATHS]) {
      app.all(path, async (c, next) => {
        if (!oauth() || !grants) return next();
        authServer ??= import('./mcp/oauth/auth-server-routes.js').then((m) => m.authServer(grants));
        return (await authServer)(c);
      });
    }
  }
  for (const mount of deps.mounts ?? []) mountLazily(app, mount.path, mount.build, onError);
  return app;
}
