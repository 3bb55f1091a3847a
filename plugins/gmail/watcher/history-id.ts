/** Gmail history ids are unsigned 64-bit integers sent as strings or numbers: compare them as BigInt. */
export function isHistoryId(value: unknown): value is string | number {
  return (typeof value === 'string' && /^\d{1,20}$/.test(value)) || (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0);
}

/** The later of two history ids (either may be missing): the stored id only ever moves forward. */
export function laterHistoryId(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return BigInt(a) >= BigInt(b) ? a : b;
}
