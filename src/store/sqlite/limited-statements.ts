import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from './open-database.js';

/** statements kept per helper; past this many different limits (an admin's ?limit=), each call prepares its own */
const KEPT_LIMITS = 64;

/**
 * A statement per LIMIT, the number written into the SQL. SQLite (3.47 on) plans with a bound
 * LIMIT's value, so a `LIMIT ?` statement is compiled again each time the limit is bound: every
 * call, more than reading an empty session's history itself. The limits herald asks for
 * are few (the history limit, a claim's free slots, a page size), so each one's statement is prepared once.
 */
export function limitedStatements<P extends unknown[], R>(db: SqliteDatabase, sql: (limit: number) => string): (limit: number) => Statement<P, R> {
  const kept = new Map<number, Statement<P, R>>();
  return function limitedStatement(limit) {
    // written into the SQL: only a whole number may go there
    if (!Number.isSafeInteger(limit)) throw new TypeError(`a LIMIT must be a whole number, not ${limit}`);
    let statement = kept.get(limit);
    if (!statement) {
      statement = db.prepare<P, R>(sql(limit));
      if (kept.size < KEPT_LIMITS) kept.set(limit, statement);
    }
    return statement;
  };
}
