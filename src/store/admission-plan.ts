import type { RunAdmission, RunWaitReason } from './port.js';

/**
 * When a new run may start, by both adapters' one rule: the rate's next free slot (the n-th newest
 * slot plus the window: no window of `perMs` ever holds more than `runs` starts), then the end of
 * its coalescing window. `nthSlot`: the slot of the mapping's `runs`-th newest run, if any;
 * `saturated`: its concurrency is taken by runs admitted before it.
 */
export function admissionPlan(
  now: number,
  a: RunAdmission,
  nthSlot: number | undefined,
  saturated: boolean,
): { type: 'rate-limited'; retryAfterMs: number } | { type: 'plan'; start: number; notBefore?: number; waitedFor?: RunWaitReason } {
  const rateSlot = a.rate && nthSlot !== undefined ? Math.max(now, nthSlot + a.rate.perMs) : now;
  if (a.rate?.reject && rateSlot > now) return { type: 'rate-limited', retryAfterMs: rateSlot - now };
  const start = Math.max(rateSlot, a.coalesce ? now + a.coalesce.windowMs : now);
  const waitedFor: RunWaitReason | undefined = rateSlot > now ? 'rate' : a.coalesce ? 'coalesce' : saturated ? 'concurrency' : undefined;
  return { type: 'plan', start, ...(start > now && { notBefore: start }), ...(waitedFor && { waitedFor }) };
}

/**
 * Whether an event joins its key's open coalescing run: the run's events and its message stay
 * within `maxEvents` and `maxBytes`; otherwise the event starts a new run (and window) of its own,
 * so one run's message, and the work of each event joining it, stays bounded.
 */
export function joinsCoalesced(a: NonNullable<RunAdmission['coalesce']>, messages: string[], message: string): boolean {
  return messages.length <= a.maxEvents && Buffer.byteLength(message) <= a.maxBytes;
}
