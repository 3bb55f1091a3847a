import { HeraldError } from '../../errors.js';
import { safeEqual } from '../../utils/constant-time.js';
import type { FailedAuthLimiter } from './failed-auth-limiter.js';
import type { Requester } from './requester.js';

/**
 * Checks a presented token against the expected one, counting failures per address on the
 * limiter's surface: the right token is admitted even while its address is limited; a wrong one
 * is 401, or 429 once the address is past the limit.
 */
export function checkToken(who: Requester, limiter: FailedAuthLimiter, presented: string | undefined, expected: string | undefined): void {
  if (presented === undefined || expected === undefined || !safeEqual(presented, expected)) {
    limiter.failed(who, presented === undefined || presented === '' ? 'missing token' : 'wrong token');
    throw new HeraldError('HERALD_UNAUTHORIZED');
  }
  limiter.succeeded(who);
}
