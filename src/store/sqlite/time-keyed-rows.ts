import type { ListQuery } from '../port.js';
import type { ListFilter } from '../queries/list-filter.js';
import type { SqliteDatabase } from './open-database.js';

/**
 * Rows keyed by their own time: a run or a receipt whose id is a UUID v7 made at its creation
 * millisecond (uuid-v7.ts: the id's first 13 characters are that millisecond in hex), and an
 * event made no earlier than every event before it (its rowid the next one). The order of such
 * ids is (time, id) order, so SQLite lists them newest first from the primary key. The other rows
 * (an id chosen before the row was made, an imported or a test row, an event made while the clock
 * was set back) hold their time in `unkeyed_at` too, and only they are in the table's index by
 * time, partial over them: a run, a request and an event each write one index entry fewer (a page
 * fewer per table in every group commit).
 * A list walks the primary key, and merges in the other rows' page when its range holds any.
 * The column is set at the insert: a partial index over an expression of the id and the time
 * cost each run's insert (its triggers run with it) more than the index entry it spared.
 */

/** what `unkeyed_at` holds for a row: nothing when its id is its time's, else its time */
export function unkeyedAt(id: string, at: number): number | null {
  return msOfId(id) === at ? null : at;
}

/** each lowercase hex digit's value by its character code, -1 for every other character */
const HEX_DIGIT = new Int8Array(128).fill(-1);
for (let d = 0; d < 16; d++) HEX_DIGIT[d.toString(16).charCodeAt(0)] = d;

/**
 * The millisecond an id's first 13 characters name as firstIdAt writes them (8 hex digits, a dash,
 * 4 more), or -1 when they are not that: read digit by digit, so every insert makes no string.
 * Lowercase only, as the text order of the ids must be their times'.
 */
function msOfId(id: string): number {
  if (id.length < 13 || id.charCodeAt(8) !== 45) return -1;
  let ms = 0;
  for (let i = 0; i < 13; i++) {
    if (i === 8) continue;
    const digit = HEX_DIGIT[id.charCodeAt(i)] ?? -1;
    if (digit < 0) return -1;
    ms = ms * 16 + digit;
  }
  return ms;
}

/** the least id of a row keyed by its time made at `ms` or later (the first 13 characters of uuidV7(ms)) */
export function firstIdAt(ms: number): string {
  const time = Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0');
  return `${time.slice(0, 8)}-${time.slice(8)}`;
}

/** a time range in ms: `since` and `until` inclusive, `before` exclusive */
export interface TimeRange {
  since?: number;
  until?: number;
  before?: number;
}

/** the least id of a keyed row made at a millisecond or later: firstIdAt for UUID v7 ids, firstRowidAt for rowids */
export type IdAt = (ms: number) => unknown;

/**
 * The least rowid of `table`'s rows keyed by their time made at `ms` or later, one past the newest
 * when none is: rows whose rowid is the next one and whose time is the time they were made, kept
 * keyed only when made no earlier than every keyed row before them (an event: events-repo.ts), so
 * their times do not decrease with their rowids. A binary search over the rowids, each step one
 * seek of the primary key (about 20 for a million rows).
 */
export function firstRowidAt(db: SqliteDatabase, table: string, timeColumn: string): IdAt {
  const newest = db.prepare<[], number | null>(`SELECT MAX(rowid) FROM ${table}`).pluck();
  const keyedFrom = db.prepare<[number], { id: number; at: number }>(`SELECT rowid AS id, ${timeColumn} AS at FROM ${table} WHERE rowid >= ? AND unkeyed_at IS NULL ORDER BY rowid LIMIT 1`);
  return (ms) => {
    let low = 0;
    let high = (newest.get() ?? 0) + 1;
    while (low < high) {
      const middle = Math.floor((low + high) / 2);
      const row = keyedFrom.get(middle);
      if (!row || row.at >= ms) high = middle;
      else low = row.id + 1;
    }
    return low;
  };
}

/** `range` as a range of the keyed rows' ids (of the primary key), each value given to `bind` for its placeholder */
export const keyedRange = (range: TimeRange, bind: (value: unknown) => string, idAt: IdAt = firstIdAt): string[] => rangeOn(range, 'unkeyed_at IS NULL', 'id', idAt, bind);

/** `range` as a range of the other rows' `unkeyed_at` (of their index) */
export const unkeyedRange = (range: TimeRange, bind: (value: unknown) => string): string[] => rangeOn(range, 'unkeyed_at IS NOT NULL', 'unkeyed_at', (ms) => ms, bind);

/** the rows of `kind` whose `column` lies in `range`, its ends' milliseconds made `column`'s values by `valueAt` */
function rangeOn(range: TimeRange, kind: string, column: string, valueAt: (ms: number) => unknown, bind: (value: unknown) => string): string[] {
  const { since, end } = endsOf(range);
  const conditions = [kind];
  if (since !== undefined) conditions.push(`${column} >= ${bind(valueAt(since))}`);
  if (end !== undefined) conditions.push(`${column} < ${bind(valueAt(end))}`);
  return conditions;
}

/** the range's first millisecond and the one past its last */
function endsOf(range: TimeRange): { since?: number; end?: number } {
  const ends = [range.until === undefined ? undefined : range.until + 1, range.before].filter((e): e is number => e !== undefined);
  return { since: range.since, end: ends.length ? Math.min(...ends) : undefined };
}

/**
 * `columns` of `table`'s rows made at `@since` (ms) or later, both kinds: the keyed ones from a
 * range of the primary key (from `@from`), the others from `unkeyedIndex`; bound by `sinceParams`
 */
export const rowsSinceSql = (table: string, unkeyedIndex: string, timeColumn: string, columns: string): string =>
  `SELECT ${columns} FROM ${table} WHERE unkeyed_at IS NULL AND id >= @from AND ${timeColumn} >= @since
    UNION ALL SELECT ${columns} FROM ${table} INDEXED BY ${unkeyedIndex} WHERE unkeyed_at IS NOT NULL AND unkeyed_at >= @since`;

/** the values of rowsSinceSql's placeholders */
export const sinceParams = (since: number): { from: string; since: number } => ({ from: firstIdAt(since), since });

/** whether `table`'s index of unkeyed rows holds one in a time range: asked with the probe's SQL and its values */
export type UnkeyedInRange = (sql: string, values: unknown[]) => boolean;

/** the probe asked of `db` */
export const unkeyedProbe =
  (db: SqliteDatabase): UnkeyedInRange =>
  (sql, values) =>
    db.prepare(sql).get(...values) !== undefined;

/**
 * A page of a list newest first by (`timeColumn`, id) over `table`, for a list no other index
 * orders: the keyed rows from the primary key, in id order, which is theirs. When `unkeyedIndex`
 * holds rows in the page's time range (`unkeyedInRange` is asked: a probe of one index entry), their
 * page is merged in; a store of herald's own rows has none, and the page is one walk, unsorted.
 * `f` holds the list's conditions, its time range and cursor included (the bounds only let each
 * walk start and stop where they do).
 */
export function timeKeyedPage(table: string, unkeyedIndex: string, timeColumn: string, f: ListFilter, query: ListQuery, unkeyedInRange: UnkeyedInRange, idAt: IdAt = firstIdAt): string {
  const range: TimeRange = { since: query.since, until: query.until, before: query.after && query.after.at + 1 };
  const probe: unknown[] = [];
  const inRange = unkeyedRange(range, (value) => (probe.push(value), '?'));
  const merged = unkeyedInRange(`SELECT 1 FROM ${table} INDEXED BY ${unkeyedIndex} WHERE ${inRange.join(' AND ')} LIMIT 1`, probe);
  const bind = (value: unknown) => f.bind(value);
  const keyed = keyedRange(range, bind, idAt);
  const limit = f.bind(query.limit);
  if (!merged) return `SELECT * FROM ${table} ${f.sql(...keyed)} ORDER BY id DESC LIMIT ${limit}`;
  return `SELECT * FROM (SELECT * FROM ${table} ${f.sql(...keyed)} ORDER BY id DESC LIMIT ${limit})
    UNION ALL SELECT * FROM (SELECT * FROM ${table} INDEXED BY ${unkeyedIndex} ${f.sql(...unkeyedRange(range, bind))} ORDER BY unkeyed_at DESC, id DESC LIMIT ${limit})
    ORDER BY ${timeColumn} DESC, id DESC LIMIT ${limit}`;
}
