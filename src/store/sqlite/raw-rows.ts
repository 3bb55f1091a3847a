import type { Statement } from 'better-sqlite3';

/**
 * Rows a hot statement returns as arrays, made into objects here. better-sqlite3 builds each
 * row object column by column through V8's API, which costs several times what a script
 * building the same object does: for a statement that returns wide rows many times a second
 * (a claim returns each run whole), the columns are named once and the rows read raw.
 */
export function rawRows<P extends unknown[], R extends object>(statement: Statement<P, unknown>, columns: readonly (keyof R & string)[]) {
  const raw = (statement as Statement<P, unknown[]>).raw(true);
  return (...params: P): R[] =>
    raw.all(...params).map((values) => {
      const row: Record<string, unknown> = {};
      // the same keys in the same order every time: every row gets the same hidden class
      for (let i = 0; i < columns.length; i++) row[columns[i]!] = values[i];
      return row as R;
    });
}
