import type { Context } from 'hono';
import { HeraldError } from '../../errors.js';
import type { CompiledMapping } from '../../mappings/compiled-mapping.js';
import type { FailedAuthLimiter } from '../failed-auth-limiter.js';

/**
 * A request without the hook token, to a path whose mappings declare `auth`: admitted when its
 * signature verifies over the raw body for at least one of them (those are the mappings that may
 * take it). Otherwise 401, counted against the address on this path only (a sender whose secret
 * is wrong locks out its own path, not the others), with the reason logged.
 */
export function admitBySignature(
  c: Context,
  limiter: FailedAuthLimiter,
  path: string,
  signed: readonly CompiledMapping[],
  headers: Record<string, string>,
  body: Uint8Array,
  nowMs = Date.now(),
): CompiledMapping[] {
  // the URL as received, query included: Twilio signs it (behind a TLS proxy, a mapping's auth.url says the public one)
  const admitted = signed.filter((m) => m.signature?.verify(headers, body, nowMs, c.req.url));
  if (!admitted.length) {
    limiter.failed(c, signed[0]?.signature?.failure?.(headers, nowMs) ?? 'bad signature', path);
    throw new HeraldError('HERALD_UNAUTHORIZED');
  }
  return admitted;
}
