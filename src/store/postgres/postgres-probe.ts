import type pg from 'pg';
import type { StoreProbe } from '../contracts/store-probe.js';
import { countsFromRows } from '../rows/store-counts.js';
import { query } from './pg-pool.js';

/**
 * /readyz and /metrics over PostgreSQL. The counts are the sums of `store_counts`, kept by
 * triggers (the 'scale' migration): a share per backend that wrote, and the folded total (shard 0).
 * The same statement folds the shares no writer holds right now into the total (SKIP LOCKED:
 * a scrape never waits on a writer; totals in name order: two scrapes never wait on each
 * other in a cycle), so the rows stay as few as the connections between two scrapes. Its
 * SELECT reads the snapshot the statement began with, before the fold: the sums are exact.
 */
export function postgresProbe(pool: pg.Pool): StoreProbe {
  return {
    async ping() {
      await query(pool, 'SELECT 1');
    },
    async counts() {
      const { rows } = await query<{ name: string; n: string }>(
        pool,
        `WITH shares AS (
           DELETE FROM store_counts WHERE ctid = ANY (ARRAY (SELECT ctid FROM store_counts WHERE shard <> 0 FOR UPDATE SKIP LOCKED))
           RETURNING name, n),
         folded AS (
           INSERT INTO store_counts (name, shard, n) SELECT name, 0, SUM(n) FROM shares GROUP BY name ORDER BY name
           ON CONFLICT (name, shard) DO UPDATE SET n = store_counts.n + EXCLUDED.n)
         SELECT name, SUM(n)::text AS n FROM store_counts GROUP BY name`,
      );
      return countsFromRows(rows);
    },
  };
}
