import { Hono } from 'hono';
import type { Logger } from 'pino';
import { HeraldError } from '../../errors.js';
import type { HeraldConfig } from '../../config/schema.js';
import type { MappingsEngine } from '../../mappings/mappings-engine.js';
import { trimSlashes, type HookRequest } from '../../mappings/hook-request.js';
import type { DispatchAction } from '../../runtime/dispatch-action.js';
import type { FailedAuthLimiter } from '../failed-auth-limiter.js';
import { parseJsonBody, readBody } from '../read-body.js';
import { checkToken } from '../token-auth.js';
import { presentedHookToken } from './hook-token.js';

export interface HooksRoutesDeps {
  config: HeraldConfig;
  engine: MappingsEngine;
  dispatch: DispatchAction;
  limiter: FailedAuthLimiter;
  logger: Logger;
}

/** The webhook surface: method, auth, body, then one mapping pipeline for every hook. */
export function hooksRoutes(deps: HooksRoutesDeps): Hono {
  const { hooks } = deps.config;
  const prefix = hooks.path.replace(/\/+$/, '');
  const app = new Hono();
  app.all('*', async (c) => {
    if (c.req.method !== 'POST') {
      throw new HeraldError('HERALD_METHOD_NOT_ALLOWED', undefined, { headers: { Allow: 'POST' } });
    }
    const presented = presentedHookToken(c);
    checkToken(c, deps.limiter, presented?.token, hooks.token);
    if (presented?.form === 'query') {
      c.header('Deprecation', 'true');
      deps.logger.warn({ reqId: c.get('requestId') }, 'hook token sent as ?token= (deprecated): send Authorization: Bearer instead');
    }

    const bytes = await readBody(c, { maxBytes: hooks.maxBodyBytes, idleTimeoutMs: hooks.bodyTimeoutMs });
    c.set('bodyBytes', bytes.byteLength);
    const url = new URL(c.req.url);
    const { token: _token, ...query } = c.req.query();
    const request: HookRequest = {
      path: trimSlashes(c.req.path.slice(prefix.length)),
      payload: parseJsonBody(bytes),
      headers: Object.fromEntries(Object.entries(c.req.header()).map(([k, v]) => [k.toLowerCase(), v])),
      query,
      url: `${url.origin}${url.pathname}`,
    };
    delete request.headers.authorization;
    delete request.headers['x-gateway-token'];
    delete request.headers['x-openclaw-token'];

    const outcome = await deps.engine.handle(request);
    c.set('mappingId', outcome.mappingId);
    if (outcome.type === 'skip') return c.body(null, 204);
    const result = await deps.dispatch(outcome.action);
    return c.json(result.body, result.status);
  });
  return app;
}
