/** Epoch milliseconds as ISO 8601, the form every admin answer uses; null stays null. */
export const isoTime = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
