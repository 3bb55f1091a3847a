import { adminDocs } from './admin-docs.js';
import { consoleDocs } from './console-docs.js';
import { hooksApi } from '../hooks/hooks-api.js';
import { platformRouteDocs } from './platform-route-docs.js';
import { routeDocOf } from './registry-docs.js';
import type { RouteDoc } from './route-doc.js';
import { rootDocs } from './root-docs.js';

/**
 * Every documented route of herald, by surface: /v1, /hooks and /admin read from their routes'
 * `createRoute` declarations, the few others listed by hand (`defineRoutes`). A new route group
 * adds its docs here; the test in test/http/openapi.e2e.test.ts fails while a served route is missing.
 */
export const routeDocs: RouteDoc[] = [...rootDocs, ...consoleDocs, routeDocOf('hooks', hooksApi.wake), routeDocOf('hooks', hooksApi.agent), ...platformRouteDocs(), ...adminDocs];
