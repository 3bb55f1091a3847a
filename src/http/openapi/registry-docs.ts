import type { OpenAPIHono, RouteConfig } from '@hono/zod-openapi';
import type { z } from 'zod';
import type { ResponseDoc, RouteDoc, RouteSecurity, Surface } from './route-doc.js';

interface Content {
  [type: string]: { schema: z.ZodType };
}
/** the parts of a `createRoute` declaration the document reads */
interface Declared {
  method: RouteDoc['method'];
  path: string;
  summary?: string;
  description?: string;
  security?: Record<string, string[]>[];
  request?: { params?: z.ZodObject; query?: z.ZodObject; body?: { content: Content; description?: string } };
  responses: Record<string, { description: string; content?: Content }>;
}

/** the first scheme a route names (the admin routes name the gateway token before the console session); none: no auth */
function securityOf(route: Declared): RouteSecurity {
  return (Object.keys(route.security?.[0] ?? {})[0] as RouteSecurity | undefined) ?? 'none';
}

/** One `createRoute` declaration as the shared OpenAPI document lists it, under the surface it is served on. */
export function routeDocOf(surface: Surface, declared: RouteConfig): RouteDoc {
  const route = declared as unknown as Declared;
  const [bodyType, body] = Object.entries(route.request?.body?.content ?? {})[0] ?? [];
  const bodyDescription = route.request?.body?.description;
  return {
    surface,
    method: route.method,
    path: route.path,
    summary: route.summary ?? '',
    ...(route.description && { description: route.description }),
    security: securityOf(route),
    request: {
      ...(route.request?.params && { params: route.request.params }),
      ...(route.request?.query && { query: route.request.query }),
      ...(body && { body: { schema: body.schema, ...(bodyType !== 'application/json' && { contentType: bodyType }), ...(bodyDescription && { description: bodyDescription }) } }),
    },
    responses: responseDocsOf(route.responses),
  };
}

/** a `createRoute` declaration's answers as the document lists them */
export function responseDocsOf(responses: Declared['responses']): Record<number, ResponseDoc> {
  return Object.fromEntries(
    Object.entries(responses).map(([status, r]): [number, ResponseDoc] => {
      const [contentType, content] = Object.entries(r.content ?? {})[0] ?? [];
      return [Number(status), { description: r.description, ...(content && { schema: content.schema }), ...(contentType && contentType !== 'application/json' && { contentType }) }];
    }),
  );
}

/**
 * The routes an app declared, as the shared OpenAPI document lists them: read from the route
 * declarations themselves (the zod schemas each route parses with), so the root document,
 * /admin/openapi.json and the API reference table (docs/console.md) can never drift from what is served.
 */
export function registryDocsOf(surface: Surface, app: OpenAPIHono): RouteDoc[] {
  return app.openAPIRegistry.definitions.flatMap((definition) => (definition.type === 'route' ? [routeDocOf(surface, definition.route)] : []));
}
