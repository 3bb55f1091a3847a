import type { Logger } from 'pino';
import { HeraldError } from '../errors.js';
import type { Requester } from './requester.js';

/** the surfaces whose failures are counted apart: a broken webhook sender must not lock out operators or API clients */
export type AuthSurface = 'hooks' | 'operator' | 'platform';

/** why an authentication failed, for the log: never the secret, the token or the signature */
export type AuthFailureReason = 'missing token' | 'wrong token' | 'missing key' | 'unknown key' | 'missing signature' | 'stale timestamp' | 'bad signature';

/**
 * Counts failed authentications of one surface in a sliding window, per client address (and,
 * for signatures of a mapped path, per address and path, so one broken sender does not block
 * the other paths). Past the limit the bucket is refused (429) until its oldest failure leaves
 * the window. Every failure is logged with its reason.
 */
export class FailedAuthLimiter {
  private readonly failures = new Map<string, number[]>();

  constructor(
    readonly surface: AuthSurface,
    private readonly logger?: Logger,
    private readonly limit = 20,
    private readonly windowMs = 60_000,
    /** bounds memory under a spray of addresses */
    private readonly maxBuckets = 10_000,
  ) {}

  /** 429 when the request's bucket is past the limit; `path` for a mapped path's signature bucket */
  refuseWhileLimited(who: Requester, path?: string): void {
    const wait = this.retryAfter(this.bucket(who, path));
    if (wait > 0) throw new HeraldError('HERALD_RATE_LIMITED', 'too many failed authentication attempts', { headers: { 'Retry-After': String(wait) } });
  }

  /** counts a failure of the request's bucket and logs why */
  failed(who: Requester, reason: AuthFailureReason, path?: string): void {
    this.fail(this.bucket(who, path));
    this.logger?.info({ reqId: who.requestId, surface: this.surface, reason, address: who.clientAddress, ...(path !== undefined && { hookPath: path }) }, 'authentication failed');
  }

  private bucket(who: Requester, path?: string): string {
    const address = who.clientAddress;
    return path === undefined ? address : `${address}\u0000${path}`;
  }

  /** seconds to wait, or 0 when the bucket may try */
  retryAfter(bucket: string, now = Date.now()): number {
    // the common case, an address that never failed: nothing to prune, nothing to allocate
    if (!this.failures.has(bucket)) return 0;
    const recent = this.prune(bucket, now);
    if (recent.length < this.limit) return 0;
    return Math.max(1, Math.ceil((recent[0]! + this.windowMs - now) / 1000));
  }

  fail(bucket: string, now = Date.now()): void {
    const recent = this.prune(bucket, now);
    recent.push(now);
    this.failures.delete(bucket);
    this.failures.set(bucket, recent);
    if (this.failures.size > this.maxBuckets) this.failures.delete(this.failures.keys().next().value!);
  }

  private prune(bucket: string, now: number): number[] {
    const list = this.failures.get(bucket) ?? [];
    const recent = list.filter((t) => now - t < this.windowMs);
    if (recent.length) this.failures.set(bucket, recent);
    else this.failures.delete(bucket);
    return recent;
  }
}
