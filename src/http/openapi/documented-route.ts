import type { OpenAPIHono, RouteConfig } from '@hono/zod-openapi';
import type { BlankEnv, Handler } from 'hono/types';

/** the schemes the document knows (openapi-document.ts), as a `createRoute` names them */
export const apiKeySecurity = [{ apiKey: [] }];
export const hookTokenSecurity = [{ hookToken: [] }];
export const gatewayTokenSecurity = [{ gatewayToken: [] }];

/** OpenAPI's `/files/{id}` as Hono routes it: `/files/:id` */
type HonoPath<P extends string> = P extends `${infer Head}{${infer Name}}${infer Tail}` ? `${Head}:${Name}${HonoPath<Tail>}` : P;

/**
 * Serves `handler` at a `createRoute` declaration's method and path, and registers the declaration
 * for the document. Unlike `app.openapi()`, it adds no validator: the handler parses with the
 * declared schemas itself, so its refusals keep their own bodies (OpenAI's error under /v1).
 */
export function serveDocumented<R extends RouteConfig>(app: OpenAPIHono, route: R, handler: Handler<BlankEnv, HonoPath<R['path']>>): void {
  app.openAPIRegistry.registerPath(route);
  app.on(route.method.toUpperCase(), route.path.replace(/\{([^}]+)\}/g, ':$1'), handler as Handler);
}
