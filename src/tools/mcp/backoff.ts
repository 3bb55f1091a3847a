/** the first wait before a failed server is connected again */
const FIRST_MS = 1000;
/** the longest wait: a server down for long is tried about once a minute */
export const MAX_BACKOFF_MS = 60_000;
/** a connection that stayed ready this long starts its backoff over when it fails */
export const STEADY_MS = 60_000;

/** the wait before attempt `failures + 1`: doubling from one second up to a minute, with a fifth of jitter (replicas do not retry in step) */
export function backoffMs(failures: number): number {
  const base = Math.min(MAX_BACKOFF_MS, FIRST_MS * 2 ** Math.min(failures, 16));
  return Math.round(base * (0.8 + Math.random() * 0.2));
}
