import type { Logger } from 'pino';
import { HeraldError } from '../../errors.js';
import type { Requester } from './requester.js';
import type { SignatureFailure } from '../../mappings/signatures/signature-verifier.js';

/** the surfaces whose failures are counted apart: a broken webhook sender must not lock out operators or API clients */
export type AuthSurface = 'hooks' | 'operator' | 'platform';

/** why an authentication failed, for the log: never the secret, the token or the signature */
export type AuthFailureReason = 'missing token' | 'wrong token' | 'missing key' | 'unknown key' | SignatureFailure;

/**
 * Counts failed authentications of one surface in a sliding window, per client address (and,
 * for signatures of a mapped path, per address and path, so one broken sender does not block
 * the other paths). Past the limit a wrong credential is refused with 429 (not 401) until its
 * oldest failure leaves the window; a valid credential is always admitted and clears its bucket,
 * so wrong tokens sent from behind the same NAT or proxy never lock a real sender out. Every
 * failure is logged with its reason.
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

  /**
   * A wrong or missing credential: 429 naming the limit when the request's bucket is already
   * past it, otherwise the failure is counted and logged, and the caller answers 401. `path` for
   * a mapped path's signature bucket.
   */
  failed(who: Requester, reason: AuthFailureReason, path?: string): void {
    const bucket = this.bucket(who, path);
    const wait = this.retryAfter(bucket);
    if (wait > 0) {
      throw new HeraldError('HERALD_RATE_LIMITED', `too many failed authentication attempts from this address: ${this.limit} per ${this.windowMs / 1000}s on ${this.surface}. Retry in ${wait}s.`, {
        headers: { 'Retry-After': String(wait) },
      });
    }
    this.fail(bucket);
    this.logger?.info({ reqId: who.requestId, surface: this.surface, reason, address: who.clientAddress, ...(path !== undefined && { hookPath: path }) }, 'authentication failed');
  }

  /** a valid credential: its bucket's failures are forgotten */
  succeeded(who: Requester, path?: string): void {
    if (this.failures.size) this.failures.delete(this.bucket(who, path));
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
