import type { Store } from '../../src/store/port.js';
import type { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';

/** the SQLite handle behind a gateway's store, for e2e tests that look at (or age) rows directly */
export function sqliteDb(store: Store) {
  const db = (store as Partial<SqliteStore>).db;
  if (!db) throw new Error('this test reads SQLite rows: it needs storage.sqlite');
  return db;
}
