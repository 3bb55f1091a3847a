import type { backoffKinds } from '../../config/sections/delivery-policy-schema.js';

/** One delivery's retry schedule, every field settled (see delivery-policy.ts for where each comes from). */
export interface RetryPolicy {
  attempts: number;
  backoff: (typeof backoffKinds)[number];
  initialMs: number;
  maxMs: number;
  /** gives up this long after the delivery was queued (or retried by an operator); undefined: never */
  maxAgeMs?: number;
}

/**
 * The wait before the next attempt, after `attempts` failed ones: exponential (initial * 2^(n-1))
 * or linear (initial * n), capped at `maxMs`, with "equal jitter" (half fixed, half random) so
 * many deliveries failing together do not retry in lockstep. A platform's own hint (Retry-After)
 * wins over the computed delay and is honoured whole, even past `maxMs`: a platform that says "not
 * for an hour" refuses an earlier retry anyway (and may penalise it), so retrying early only burns attempts.
 */
export function retryDelay(attempts: number, policy: Pick<RetryPolicy, 'backoff' | 'initialMs' | 'maxMs'>, retryAfterMs?: number, random: () => number = Math.random): number {
  if (retryAfterMs !== undefined) return Math.max(0, retryAfterMs);
  const n = Math.max(1, attempts);
  const grown = policy.backoff === 'linear' ? policy.initialMs * n : policy.initialMs * 2 ** (n - 1);
  const capped = Math.min(policy.maxMs, grown);
  return Math.round(capped / 2 + random() * (capped / 2));
}
