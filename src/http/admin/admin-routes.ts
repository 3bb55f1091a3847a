import type { OpenAPIHono } from '@hono/zod-openapi';
import type { HeraldConfig } from '../../config/schema.js';
import type { ReplyDelivery } from '../../runtime/reply-delivery.js';
import type { Store } from '../../store/port.js';
import type { StoreProbe } from '../../store/store-probe.js';
import type { ConsoleSessions } from '../console/console-session.js';
import type { FailedAuthLimiter } from '../failed-auth-limiter.js';
import { registerActionRoutes } from './action-routes.js';
import { adminApp } from './admin-app.js';
import { adminAuth } from './admin-auth.js';
import { registerListRoutes } from './list-routes.js';
import { registerMappingRoutes } from './mapping-routes.js';
import type { OperatorDeps } from './operator-deps.js';
import { registerOverviewRoutes } from './overview-routes.js';
import { registerWorkspaceRoutes } from './workspace-routes.js';

export interface AdminRoutesDeps {
  config: HeraldConfig;
  store: Store;
  delivery: ReplyDelivery;
  limiter: FailedAuthLimiter;
  /** the store's counts: queue depths, and the dropped events shown beside the events list */
  probe?: StoreProbe;
  operator?: OperatorDeps;
  sessions?: ConsoleSessions;
}

/**
 * The operator's API: lists of everything that happened and actions on it, behind the gateway
 * token (or a console session with its CSRF token). Every route is declared with the zod schemas
 * that validate it; GET /admin/openapi.json is generated from them.
 */
export function adminRoutes(deps: AdminRoutesDeps): OpenAPIHono {
  const app = adminApp();
  app.use('*', adminAuth(deps));
  registerListRoutes(app, deps);
  registerOverviewRoutes(app, deps);
  if (deps.operator) {
    registerActionRoutes(app, { ...deps, operator: deps.operator });
    registerMappingRoutes(app, { operator: deps.operator });
    registerWorkspaceRoutes(app, { operator: deps.operator });
  } else {
    // the delivery retry needs nothing beyond the outbox
    app.post('/deliveries/:id/retry', async (c) => c.json(await deps.delivery.retry(c.req.param('id'))));
  }
  app.openAPIRegistry.registerComponent('securitySchemes', 'gatewayToken', { type: 'http', scheme: 'bearer', description: 'gateway.auth.token' });
  app.openAPIRegistry.registerComponent('securitySchemes', 'consoleSession', {
    type: 'apiKey',
    in: 'cookie',
    name: 'herald_console',
    description: 'The console session cookie; state-changing requests also need the X-CSRF-Token header.',
  });
  app.doc31('/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'herald admin API',
      version: '1',
      description: 'What happened in herald (receipts, runs, events, sessions, deliveries, mappings) and what an operator can do about it. Lists are newest first and cursor-paginated: pass `nextCursor` as `cursor`.',
    },
    servers: [{ url: '/admin' }],
  });
  return app;
}
