import type { OpenAPIHono } from '@hono/zod-openapi';
import { registryDocsOf, routeDocOf } from './registry-docs.js';
import { version } from './herald-version.js';
import { openApiDocument } from './openapi-document.js';
import { reloadApi } from '../admin/reload-api.js';

/**
 * `GET /admin/openapi.json`: the admin routes only (behind the gateway token, like the rest of
 * /admin), read from the declarations of the admin app that serves them, and the reload.
 */
export function adminOpenApiDocument(app: OpenAPIHono): Record<string, unknown> {
  return openApiDocument({ routes: [routeDocOf('admin', reloadApi), ...registryDocsOf('admin', app)], prefix: '/admin', version });
}
