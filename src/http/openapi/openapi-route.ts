import type { Handler } from 'hono';
import type { HeraldConfig } from '../../config/schema.js';
import type { MappingsEngine } from '../../mappings/mappings-engine.js';
import { openApiDocument, type MappedHookDoc } from './openapi-document.js';
import { routeDocs } from './route-docs.js';
import { version } from './herald-version.js';

/** the mapped hooks that declare a payload `schema` or answer themselves (`respond`), as the document shows them */
export function mappedHookDocs(engine: MappingsEngine): MappedHookDoc[] {
  return engine.mappings.flatMap((m) => {
    if (m.path === undefined || !m.action || m.action === 'skip' || (!m.schema && !m.respond)) return [];
    const respond = m.respond && ({ method: m.respond.method, handshake: m.respond.handshake, ...m.respond.declared } as MappedHookDoc['respond']);
    return [{ id: m.id, path: m.path, action: m.action, ...(m.schema && { schema: m.schema }), ...(respond && { respond }) }];
  });
}

/**
 * `GET /openapi.json`, no token (like /healthz): the document of this gateway as configured.
 * It holds shapes, never a token or a secret.
 */
export function openApiRoute(deps: { config: HeraldConfig; engine: MappingsEngine }): Handler {
  return function openApiRoute(c) {
    const document = openApiDocument({
      routes: routeDocs,
      hooksPath: deps.config.hooks.enabled ? deps.config.hooks.path : undefined,
      mappedHooks: mappedHookDocs(deps.engine),
      exclude: (route) => route.surface === 'root' && route.path === '/metrics' && !deps.config.gateway.metrics.enabled,
      version,
    });
    return c.json(document);
  };
}
