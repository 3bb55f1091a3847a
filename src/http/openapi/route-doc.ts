import type { z } from 'zod';

/** Which face of herald a route belongs to; the document puts each under its prefix. */
export type Surface = 'root' | 'hooks' | 'platform' | 'admin';

/** How a route is authenticated: the hook token, a platform API key, the gateway token, or none. */
export type RouteSecurity = 'hookToken' | 'apiKey' | 'gatewayToken' | 'none';

export interface ResponseDoc {
  description: string;
  /** the body's zod schema (JSON unless `contentType` says otherwise); omitted for no body */
  schema?: z.ZodType;
  contentType?: string;
}

/**
 * One route as the OpenAPI document shows it. `path` is relative to its surface's prefix and uses
 * OpenAPI's `{param}` form (`/runs/{id}`); the document builder turns the surface into `/v1`,
 * `/admin`, `hooks.path` or nothing. The schemas are the zod schemas the route validates with.
 */
export interface RouteDoc {
  surface: Surface;
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  summary: string;
  description?: string;
  security: RouteSecurity;
  request?: {
    body?: { schema: z.ZodType; contentType?: string; description?: string };
    query?: z.ZodObject;
    params?: z.ZodObject;
  };
  responses: Record<number, ResponseDoc>;
}
