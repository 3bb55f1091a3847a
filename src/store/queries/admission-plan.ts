import type { RunAdmission, RunWaitReason } from '../port.js';

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

/** a coalescing run's size, kept in its `coalesced` column so an event joins without reading the others */
export interface CoalescedSize {
  events: number;
  /** the bytes (UTF-8) of its message */
  bytes: number;
}

/**
 * A coalescing run's size from its `coalesced` column; undefined for a run stored by a version
 * that kept the events' messages there, under a heading that counted them: it is left as it is
 * (an event of its key starts a run of its own) rather than given an event its heading miscounts.
 */
export function coalescedSize(stored: unknown): CoalescedSize | undefined {
  return stored !== null && typeof stored === 'object' && !Array.isArray(stored) ? (stored as CoalescedSize) : undefined;
}

/** the events a coalescing run lists, from its `coalesced` column (the size, or an older version's list of messages) */
export function coalescedCount(stored: unknown): number {
  return Array.isArray(stored) ? stored.length : (coalescedSize(stored)?.events ?? 1);
}

/**
 * How an event joins its key's open coalescing run, by appending: the text that goes after the
 * run's message (its number and its message), the text that goes before it (the heading and the
 * first event's number, at the second event only) and the run's size then. Undefined when the
 * run would pass `maxEvents` or `maxBytes`: the event starts a new run (and window) of its own,
 * so one run's message stays bounded, and no join reads or rewrites the events before it.
 */
export function coalescedJoin(a: NonNullable<RunAdmission['coalesce']>, size: CoalescedSize, message: string): { before: string; after: string; size: CoalescedSize } | undefined {
  const before = size.events === 1 ? a.list.heading + a.list.marker(1) : '';
  const after = a.list.marker(size.events + 1) + message;
  const next = { events: size.events + 1, bytes: size.bytes + Buffer.byteLength(before) + Buffer.byteLength(after) };
  return next.events <= a.maxEvents && next.bytes <= a.maxBytes ? { before, after, size: next } : undefined;
}
