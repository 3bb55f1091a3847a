import type { Database } from 'better-sqlite3';

/**
 * Whether a table of the store has a column: the benches seed stores of other checkouts too
 * (BENCH_BASELINE_ROOT), whose schema may come before a migration that added it.
 */
export function hasColumn(db: Database, table: string, column: string): boolean {
  return (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).some((c) => c.name === column);
}
