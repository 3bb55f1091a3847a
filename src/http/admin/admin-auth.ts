import { createHash } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import type { HeraldConfig } from '../../config/schema.js';
import { HeraldError } from '../../errors.js';
import { bearerToken } from '../auth/bearer-token.js';
import { SESSION_COOKIE, type ConsoleSessions } from '../console/console-session.js';
import type { FailedAuthLimiter } from '../auth/failed-auth-limiter.js';
import { requesterOf } from '../auth/requester.js';
import { checkToken } from '../auth/token-auth.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

declare module 'hono' {
  interface ContextVariableMap {
    /**
     * who is calling the admin API, as a decision records it (`by`): `gateway-token` for the
     * Bearer, `console:<8 hex>` for a console session (a digest of its id: sessions have no user
     * name, since every operator signs in with the one gateway token; the digest tells sessions apart)
     */
    adminCaller: string;
  }
}

export const TOKEN_CALLER = 'gateway-token';
const sessionCaller = (sessionId: string) => `console:${createHash('sha256').update(sessionId).digest('hex').slice(0, 8)}`;

/**
 * The admin API takes the gateway token as a Bearer (scripts, curl), or the console's session
 * cookie: then every state-changing request must also carry the session's CSRF token in a header.
 * A request presenting a Bearer is judged by it alone.
 */
export function adminAuth(deps: { config: HeraldConfig; limiter: FailedAuthLimiter; sessions?: ConsoleSessions }): MiddlewareHandler {
  return async function adminAuth(c, next) {
    const bearer = bearerToken(c);
    if (bearer === undefined && c.req.header('authorization') === undefined && deps.sessions && getCookie(c, SESSION_COOKIE) !== undefined) {
      const session = await deps.sessions.verify(c);
      if (!session) {
        // forged, expired or signed out: counted like a wrong token (the console simply signs in again)
        deps.limiter.failed(requesterOf(c), 'wrong token');
        throw new HeraldError('HERALD_UNAUTHORIZED');
      }
      deps.limiter.succeeded(requesterOf(c));
      if (!SAFE_METHODS.has(c.req.method) && !deps.sessions.csrfValid(c, session.id)) throw new HeraldError('HERALD_CSRF');
      c.set('adminCaller', sessionCaller(session.id));
      await next();
      return;
    }
    checkToken(requesterOf(c), deps.limiter, bearer, deps.config.gateway.auth.token);
    c.set('adminCaller', TOKEN_CALLER);
    await next();
  };
}
