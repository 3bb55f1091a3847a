import type { Context } from 'hono';
import { HeraldError } from '../errors.js';
import { clientAddress } from './client-address.js';
import { safeEqual } from './constant-time.js';
import type { FailedAuthLimiter } from './failed-auth-limiter.js';

/**
 * Checks a presented token against the expected one, counting failures per address:
 * an address past the limit gets 429 before its token is even looked at.
 */
export function checkToken(c: Context, limiter: FailedAuthLimiter, presented: string | undefined, expected: string | undefined): void {
  const address = clientAddress(c);
  const wait = limiter.retryAfter(address);
  if (wait > 0) throw new HeraldError('HERALD_RATE_LIMITED', 'too many failed authentication attempts', { headers: { 'Retry-After': String(wait) } });
  if (presented === undefined || expected === undefined || !safeEqual(presented, expected)) {
    limiter.fail(address);
    throw new HeraldError('HERALD_UNAUTHORIZED');
  }
}
