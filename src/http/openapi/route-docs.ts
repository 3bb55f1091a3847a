import { adminDocs } from './admin-docs.js';
import { hooksApi } from '../hooks/hooks-api.js';
import { platformRouteDocs } from './platform-route-docs.js';
import { routeDocOf } from './registry-docs.js';
import type { RouteDoc } from './route-doc.js';
import { rootApi } from '../root-api.js';
import { consoleApi } from '../console/console-api.js';

/**
 * Every documented route of herald, by surface, read from its `createRoute` declaration (the root's
 * and the console's beside their routes, the rest from the apps that serve them). A new route group
 * adds its docs here; the test in test/http/openapi.e2e.test.ts fails while a served route is missing.
 */
export const routeDocs: RouteDoc[] = [...Object.values(rootApi).map((route) => routeDocOf('root', route)), ...Object.values(consoleApi).map((route) => routeDocOf('root', route)), routeDocOf('hooks', hooksApi.wake), routeDocOf('hooks', hooksApi.agent), ...platformRouteDocs(), ...adminDocs];
