import type { OpenAPIHono } from '@hono/zod-openapi';
import type { z } from 'zod';
import type { ResponseDoc, RouteDoc } from './route-doc.js';

interface Content {
  [type: string]: { schema: z.ZodType };
}
interface Definition {
  type: string;
  route?: {
    method: RouteDoc['method'];
    path: string;
    summary?: string;
    description?: string;
    request?: { params?: z.ZodObject; query?: z.ZodObject; body?: { content: Content } };
    responses: Record<string, { description: string; content?: Content }>;
  };
}

/**
 * The routes an admin app declared, as the shared OpenAPI document lists them: read from the
 * route declarations themselves (the zod schemas that validate each route), so the root document,
 * /admin/openapi.json and the API reference table (docs/console.md) can never drift from what is served.
 */
export function adminDocsOf(app: OpenAPIHono): RouteDoc[] {
  const docs: RouteDoc[] = [];
  for (const definition of app.openAPIRegistry.definitions as Definition[]) {
    const route = definition.route;
    if (definition.type !== 'route' || !route) continue;
    const [bodyType, body] = Object.entries(route.request?.body?.content ?? {})[0] ?? [];
    docs.push({
      surface: 'admin',
      method: route.method,
      path: route.path,
      summary: route.summary ?? '',
      ...(route.description && { description: route.description }),
      security: 'gatewayToken',
      request: {
        ...(route.request?.params && { params: route.request.params }),
        ...(route.request?.query && { query: route.request.query }),
        ...(body && { body: { schema: body.schema, contentType: bodyType } }),
      },
      responses: Object.fromEntries(
        Object.entries(route.responses).map(([status, r]): [number, ResponseDoc] => {
          const [contentType, content] = Object.entries(r.content ?? {})[0] ?? [];
          return [Number(status), { description: r.description, ...(content && { schema: content.schema }), ...(contentType && contentType !== 'application/json' && { contentType }) }];
        }),
      ),
    });
  }
  return docs;
}
