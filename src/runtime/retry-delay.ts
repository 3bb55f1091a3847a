export interface RetryPolicy {
  baseDelayMs: number;
  maxDelayMs: number;
}

/**
 * The wait before the next attempt, after `attempts` failed ones: exponential (base * 2^(n-1))
 * with "equal jitter" (half fixed, half random) so many deliveries failing together do not
 * retry in lockstep. A platform's own hint (Retry-After) wins over the computed delay and is
 * honoured whole, even past `maxDelayMs`: a platform that says "not for an hour" refuses an
 * earlier retry anyway (and may penalise it), so retrying early only burns attempts.
 */
export function retryDelay(attempts: number, policy: RetryPolicy, retryAfterMs?: number, random: () => number = Math.random): number {
  if (retryAfterMs !== undefined) return Math.max(0, retryAfterMs);
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(exponential / 2 + random() * (exponential / 2));
}
