/**
 * A run's action as SQLite keeps it: without its message, which the run's `message` column holds
 * (a run's row is written three times, at its insert, claim and end: its message once is enough).
 * The record is whole again when read (parseRunAction fills the message in from the column).
 */
export function storedAction(action: Record<string, unknown>): string {
  const { message: _inColumn, ...kept } = action;
  return JSON.stringify(kept);
}
