import type { Context } from 'hono';
import { HeraldError } from '../../errors.js';
import type { CompiledMapping } from '../../mappings/compiled-mapping.js';
import { clientAddress } from '../client-address.js';
import type { FailedAuthLimiter } from '../failed-auth-limiter.js';

/** 429 for an address past the failed-attempt limit, before its body is even read. */
export function refuseWhileLimited(c: Context, limiter: FailedAuthLimiter): void {
  const wait = limiter.retryAfter(clientAddress(c));
  if (wait > 0) throw new HeraldError('HERALD_RATE_LIMITED', 'too many failed authentication attempts', { headers: { 'Retry-After': String(wait) } });
}

/**
 * A request without the hook token, to a path whose mappings declare `auth`: admitted when its
 * signature verifies over the raw body for at least one of them (those are the mappings that may
 * take it). Otherwise 401, counted as a failed attempt like a wrong token.
 */
export function admitBySignature(
  c: Context,
  limiter: FailedAuthLimiter,
  signed: readonly CompiledMapping[],
  headers: Record<string, string>,
  body: Uint8Array,
  nowMs = Date.now(),
): CompiledMapping[] {
  const admitted = signed.filter((m) => m.signature?.verify(headers, body, nowMs));
  if (!admitted.length) {
    limiter.fail(clientAddress(c));
    throw new HeraldError('HERALD_UNAUTHORIZED');
  }
  return admitted;
}
