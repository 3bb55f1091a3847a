/** the last time written, by its millisecond: a burst of runs (or a page of rows) often shares one */
let last = { ms: NaN, iso: '' };

/** Epoch milliseconds as ISO 8601 (what `Date.prototype.toISOString` writes) */
export function isoString(ms: number): string {
  if (ms !== last.ms) last = { ms, iso: new Date(ms).toISOString() };
  return last.iso;
}

/** Epoch milliseconds as ISO 8601, the form every admin answer uses; null stays null. */
export const isoTime = (ms: number | null) => (ms === null ? null : isoString(ms));
