export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** seconds until the bucket is full again */
  resetSeconds: number;
  /** seconds until one request is allowed (0 when allowed) */
  retryAfterSeconds: number;
}

/**
 * A token bucket per API key: `perMinute` requests in a burst, refilled evenly over the minute,
 * so a steady client at the limit is never refused and a burst drains it.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  /** the key taken last: the newest in `buckets` already, so its bucket is updated where it is */
  private newest?: string;
  private readonly perMs: number;

  constructor(
    private readonly perMinute: number,
    /** bounds memory; the least recently used bucket is forgotten (it was refilling anyway) */
    private readonly maxKeys = 10_000,
  ) {
    this.perMs = perMinute / 60_000;
  }

  take(key: string, now = Date.now()): RateDecision {
    const previous = this.buckets.get(key);
    const tokens = previous ? Math.min(this.perMinute, previous.tokens + (now - previous.at) * this.perMs) : this.perMinute;
    const allowed = tokens >= 1;
    const left = allowed ? tokens - 1 : tokens;
    if (previous && key === this.newest) {
      // one client's requests in a row: no delete and set, whose holes make the map rehash its table
      previous.tokens = left;
      previous.at = now;
    } else {
      this.buckets.delete(key);
      this.buckets.set(key, { tokens: left, at: now });
      this.newest = key;
      if (this.buckets.size > this.maxKeys) this.buckets.delete(this.buckets.keys().next().value!);
    }
    return {
      allowed,
      limit: this.perMinute,
      remaining: Math.floor(left),
      resetSeconds: Math.ceil((this.perMinute - left) / this.perMs / 1000),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - left) / this.perMs / 1000)),
    };
  }
}

/** the x-ratelimit-* headers OpenAI sends, for the requests dimension */
export function rateLimitHeaders(d: RateDecision): Record<string, string> {
  return {
    'x-ratelimit-limit-requests': String(d.limit),
    'x-ratelimit-remaining-requests': String(d.remaining),
    'x-ratelimit-reset-requests': `${d.resetSeconds}s`,
  };
}
