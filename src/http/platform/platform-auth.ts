import type { MiddlewareHandler } from 'hono';
import { HeraldError } from '../../errors.js';
import { type ApiKeyVerifier, type ApiPrincipal } from '../../platform/api-keys.js';
import { rateLimitHeaders, type RateLimiter } from '../../platform/rate-limiter.js';
import { bearerToken } from '../bearer-token.js';
import { requesterOf } from '../requester.js';
import { setResponseHeader } from '../response-header.js';
import type { FailedAuthLimiter } from '../failed-auth-limiter.js';

declare module 'hono' {
  interface ContextVariableMap {
    /** the API key that called /v1 */
    principal: ApiPrincipal;
  }
}

/**
 * `Authorization: Bearer <API_KEY>` on every /v1 call, then the key's rate limit. An address
 * that keeps presenting bad keys is refused (429) before its keys are even looked at.
 */
export function platformAuth(keys: ApiKeyVerifier, rate: RateLimiter, failures: FailedAuthLimiter): MiddlewareHandler {
  return async function platformAuth(c, next) {
    failures.refuseWhileLimited(requesterOf(c));
    const presented = bearerToken(c);
    const principal = await keys.verify(presented);
    if (!principal) {
      failures.failed(requesterOf(c), presented ? 'unknown key' : 'missing key');
      const message = presented
        ? 'Incorrect API key provided.'
        : "You didn't provide an API key. Send it as `Authorization: Bearer <API_KEY>`.";
      throw new HeraldError('HERALD_UNAUTHORIZED', message);
    }
    const decision = rate.take(principal.name);
    const headers = rateLimitHeaders(decision);
    if (!decision.allowed) {
      throw new HeraldError('HERALD_RATE_LIMITED', `Rate limit reached for API key "${principal.name}": ${decision.limit} requests per minute. Retry in ${decision.retryAfterSeconds}s.`, {
        headers: { ...headers, 'Retry-After': String(decision.retryAfterSeconds) },
      });
    }
    for (const name in headers) setResponseHeader(c, name, headers[name]!);
    c.set('principal', principal);
    await next();
  };
}
