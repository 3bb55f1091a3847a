import type { MiddlewareHandler } from 'hono';
import { HeraldError } from '../../errors.js';
import { type ApiKeyVerifier, type ApiPrincipal } from '../../accounts/api-keys.js';
import { rateLimitHeaders, type RateLimiter } from '../../accounts/rate-limiter.js';
import { bearerToken } from '../auth/bearer-token.js';
import { requesterOf, type Requester } from '../auth/requester.js';
import { setResponseHeader } from '../request/response-header.js';
import type { FailedAuthLimiter } from '../auth/failed-auth-limiter.js';

declare module 'hono' {
  interface ContextVariableMap {
    /** the API key that called /v1 */
    principal: ApiPrincipal;
  }
}

/** a call admitted to /v1: who made it, and the rate limit's headers for its answer */
export interface PlatformAdmission {
  principal: ApiPrincipal;
  headers: Record<string, string>;
}

/**
 * `Authorization: Bearer <API_KEY>` on every /v1 call, then the key's rate limit. An address
 * that keeps presenting bad keys gets 429 for them; a valid key is admitted all the same. One gate
 * per gateway: the hono middleware and chat completions' surface (chat-completions.ts) count against
 * the same limits.
 */
export class PlatformGate {
  constructor(
    private readonly keys: ApiKeyVerifier,
    private readonly rate: RateLimiter,
    private readonly failures: FailedAuthLimiter,
  ) {}

  /**
   * The call's principal, or the HeraldError (401, 429) that refuses it: a value when the key is
   * one of the config's (nothing to wait for), a promise when the store is asked.
   */
  admit(who: Requester, presented: string | undefined): PlatformAdmission | Promise<PlatformAdmission> {
    const verifying = this.keys.verify(presented);
    return verifying instanceof Promise ? verifying.then((principal) => this.admitted(who, presented, principal)) : this.admitted(who, presented, verifying);
  }

  private admitted(who: Requester, presented: string | undefined, principal: ApiPrincipal | undefined): PlatformAdmission {
    if (!principal) {
      this.failures.failed(who, presented ? 'unknown key' : 'missing key');
      const message = presented
        ? 'Incorrect API key provided.'
        : "You didn't provide an API key. Send it as `Authorization: Bearer <API_KEY>`.";
      throw new HeraldError('HERALD_UNAUTHORIZED', message);
    }
    this.failures.succeeded(who);
    return this.limited(principal);
  }

  /**
   * A call made with an OAuth grant of key `name` (herald's tokens for /mcp): the key as it is
   * now (a key removed since the consent admits nothing), then its rate limit.
   */
  async admitGranted(who: Requester, name: string): Promise<PlatformAdmission> {
    const principal = await this.keys.named(name);
    if (!principal) {
      this.failures.failed(who, 'unknown key');
      throw new HeraldError('HERALD_UNAUTHORIZED', `The API key "${name}" this grant carries no longer exists.`);
    }
    this.failures.succeeded(who);
    return this.limited(principal);
  }

  private limited(principal: ApiPrincipal): PlatformAdmission {
    const decision = this.rate.take(principal.name);
    const headers = rateLimitHeaders(decision);
    if (!decision.allowed) {
      throw new HeraldError('HERALD_RATE_LIMITED', `Rate limit reached for API key "${principal.name}": ${decision.limit} requests per minute. Retry in ${decision.retryAfterSeconds}s.`, {
        headers: { ...headers, 'Retry-After': String(decision.retryAfterSeconds) },
      });
    }
    return { principal, headers };
  }
}

/** the gate as hono middleware: the principal for the routes after it, the rate limit's headers on the answer */
export function platformAuth(gate: PlatformGate): MiddlewareHandler {
  return async function platformAuth(c, next) {
    const { principal, headers } = await gate.admit(requesterOf(c), bearerToken(c));
    for (const name in headers) setResponseHeader(c, name, headers[name]!);
    c.set('principal', principal);
    await next();
  };
}
