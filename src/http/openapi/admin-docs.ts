import { adminRouteDocs } from './admin-route-docs.js';
import { reloadApi } from '../admin/reload-api.js';
import { routeDocOf } from './registry-docs.js';
import type { RouteDoc } from './route-doc.js';

/** the admin routes, read from their own declarations (the zod schemas that validate them), and the reload */
export const adminDocs: RouteDoc[] = [routeDocOf('admin', reloadApi), ...adminRouteDocs()];
