import type { HeraldConfig } from '../../config/schema.js';
import { adminRoutes } from '../admin/admin-routes.js';
import type { OperatorDeps } from '../admin/operator-deps.js';
import { FailedAuthLimiter } from '../auth/failed-auth-limiter.js';
import { registryDocsOf } from './registry-docs.js';
import type { RouteDoc } from './route-doc.js';

/**
 * The admin routes as the shared OpenAPI registry (src/http/openapi) lists them. The routes are
 * declared on an app that never serves: only its declarations are read.
 */
export function adminRouteDocs(): RouteDoc[] {
  return registryDocsOf('admin', adminRoutes({ config: {} as HeraldConfig, store: {} as never, delivery: {} as never, limiter: new FailedAuthLimiter('operator'), operator: { schedules: {}, evals: {} } as OperatorDeps }));
}
