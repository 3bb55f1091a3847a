import { z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Logger } from 'pino';
import type { HeraldConfig } from '../../config/schema.js';
import type { DeliveryActions } from '../../runtime/delivery/delivery-actions.js';
import type { Store } from '../../store/port.js';
import type { StoreProbe } from '../../store/contracts/store-probe.js';
import type { ToolServerHealth } from '../../tools/mcp/server-health.js';
import type { ConsoleSessions } from '../console/console-session.js';
import type { TroubleSources } from './views/trouble-view.js';
import type { FailedAuthLimiter } from '../auth/failed-auth-limiter.js';
import { registerActionRoutes } from './action-routes.js';
import { registerAlertRoutes } from './alert-routes.js';
import { registerMcpSessionRoutes } from './mcp-session-routes.js';
import { registerMcpCallRoutes } from './mcp-call-routes.js';
import { registerMcpGrantRoutes } from './mcp-grant-routes.js';
import type { McpGrants } from '../../accounts/mcp-grants.js';
import type { McpSessions } from '../mcp/mcp-sessions.js';
import { registerApprovalRoutes } from './approval-routes.js';
import { registerQuestionRoutes } from './question-routes.js';
import { registerUsageRoutes } from './usage-routes.js';
import { registerResponseRoutes } from './response-routes.js';
import { adminApp, bearerSecurity } from './admin-app.js';
import { adminAuth } from './admin-auth.js';
import { registerFileRoutes } from './file-routes.js';
import { registerListRoutes } from './list-routes.js';
import { registerMappingRoutes } from './mapping-routes.js';
import type { OperatorDeps } from './operator-deps.js';
import { registerOverviewRoutes } from './overview-routes.js';
import { registerScheduleFireRoutes } from './schedule-fire-routes.js';
import { registerScheduleRoutes } from './schedule-routes.js';
import { registerWorkspaceRoutes } from './workspace-routes.js';
import { registerEvalRoutes } from './eval-routes.js';
import { registerToolServerRoutes } from './tool-server-routes.js';
import type { ToolSignIns } from '../../tools/mcp/oauth/tool-sign-ins.js';

export interface AdminRoutesDeps {
  config: HeraldConfig;
  store: Store;
  delivery: DeliveryActions;
  limiter: FailedAuthLimiter;
  /** the store's counts: queue depths, and the dropped events shown beside the events list */
  probe?: StoreProbe;
  /** the MCP servers' health, in the overview */
  toolServers?: () => ToolServerHealth[];
  /** signing in to MCP servers */
  signIns?: ToolSignIns;
  /** this process's records of what went wrong, in the overview's trouble */
  trouble?: Omit<TroubleSources, 'toolServers'>;
  operator?: OperatorDeps;
  sessions?: ConsoleSessions;
  /** /mcp's sessions (platform.mcp.enabled): GET /admin/mcp/sessions */
  mcp?: { sessions: McpSessions; grants?: McpGrants };
  /** for the operators' decisions (who decided what; never a call's arguments) */
  logger?: Logger;
  /**
   * GET /admin/openapi.json's document of these routes, made by the shared OpenAPI registry
   * (openapi/admin-openapi.ts), which reads the admin routes' declarations: handed in, so the
   * admin routes import nothing of the document made from them
   */
  openApiDocument?: (app: OpenAPIHono) => Promise<Record<string, unknown>>;
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
  registerAlertRoutes(app, deps);
  registerUsageRoutes(app, deps);
  registerResponseRoutes(app, deps);
  registerApprovalRoutes(app, deps);
  registerQuestionRoutes(app, deps);
  registerFileRoutes(app, deps);
  // declared whatever the config (the API reference documents it)
  registerToolServerRoutes(app, { signIns: deps.signIns, logger: deps.logger });
  // declared whatever the config (the API reference documents it), answered from the sessions only when /mcp is on
  registerMcpSessionRoutes(app, { sessions: deps.mcp && deps.config.platform.mcp.enabled ? deps.mcp.sessions : undefined });
  registerMcpCallRoutes(app, { store: deps.store });
  registerMcpGrantRoutes(app, {
    grants: () => (deps.mcp && deps.config.platform.mcp.enabled && deps.config.platform.mcp.oauth.enabled ? deps.mcp.grants : undefined),
    keyNames: async () => (deps.operator ? (await deps.operator.keys.list()).map((k) => k.name) : deps.config.platform.apiKeys.map((k) => k.name)),
    logger: deps.logger,
  });
  // the actions, the mapping workbench and the console's pages (the gateway always assembles them)
  if (deps.operator) {
    registerActionRoutes(app, { ...deps, operator: deps.operator });
    registerMappingRoutes(app, { operator: deps.operator, trouble: deps.trouble });
    registerWorkspaceRoutes(app, { operator: deps.operator });
    if (deps.operator.evals) registerEvalRoutes(app, { evals: deps.operator.evals });
    if (deps.operator.schedules) {
      registerScheduleRoutes(app, { schedules: deps.operator.schedules, store: deps.store });
      registerScheduleFireRoutes(app, { store: deps.store });
    }
  }
  app.openAPIRegistry.registerPath({
    method: 'get',
    path: '/openapi.json',
    tags: ['admin'],
    summary: 'The OpenAPI 3.1 document of the admin API alone',
    security: bearerSecurity,
    responses: { 200: { description: 'The document', content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } } } },
  });
  const { openApiDocument } = deps;
  if (openApiDocument) app.get('/openapi.json', async (c) => c.json(await openApiDocument(app)));
  return app;
}
