import type { StoreProbe } from '../contracts/store-probe.js';
import { countsFromRows } from '../rows/store-counts.js';
import type { SqliteDatabase } from './open-database.js';

/**
 * The store probe over SQLite. The counts are the rows of `store_counts`, kept exact in the
 * transactions that change the rows counted (runs and events by the group commit's writes,
 * count-deltas.ts; deliveries and knowledge by the 'scale' migration's triggers): a scrape reads
 * eleven rows however large the runs, events, outbox or knowledge base grow.
 */
export function sqliteProbe(db: SqliteDatabase): StoreProbe {
  const ping = db.prepare('SELECT COUNT(*) FROM sqlite_master').pluck();
  const counts = db.prepare<[], { name: string; n: number }>('SELECT name, n FROM store_counts');
  return {
    async ping() {
      ping.get();
    },
    async counts() {
      return countsFromRows(counts.all());
    },
  };
}
