import type pg from 'pg';
import type { StateRepo } from '../port.js';
import { query, transaction } from './pg-pool.js';

export function postgresStateRepo(pool: pg.Pool): StateRepo {
  return {
    async get<T>(key: string) {
      const { rows } = await query<{ value: T }>(pool, 'SELECT value FROM state WHERE key = $1', [key]);
      return rows[0]?.value;
    },
    async set(key, value) {
      await query(
        pool,
        'INSERT INTO state (key, value, updated_at) VALUES ($1, $2::jsonb, $3) ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
        [key, JSON.stringify(value), Date.now()],
      );
    },
    /**
     * Read, compute, write under the row's lock: a replica updating the same key (the gmail
     * historyId, a lease) waits for this one to commit and then reads its value. A key that
     * does not exist yet is inserted first (a placeholder nobody sees: it commits with the value).
     */
    async update<T>(key: string, fn: (current: T | undefined) => T) {
      return transaction(pool, async (client) => {
        const placed = await client.query(
          "INSERT INTO state (key, value, updated_at) VALUES ($1, 'null'::jsonb, $2) ON CONFLICT (key) DO NOTHING RETURNING key",
          [key, Date.now()],
        );
        const { rows } = await client.query<{ value: T }>('SELECT value FROM state WHERE key = $1 FOR UPDATE', [key]);
        const next = fn(placed.rowCount === 1 ? undefined : rows[0]?.value);
        await client.query('UPDATE state SET value = $2::jsonb, updated_at = $3 WHERE key = $1', [key, JSON.stringify(next), Date.now()]);
        return next;
      });
    },
    async delete(key) {
      await query(pool, 'DELETE FROM state WHERE key = $1', [key]);
    },
    async list<T>(prefix: string) {
      const { rows } = await query<{ key: string; value: T }>(pool, 'SELECT key, value FROM state WHERE left(key, $1) = $2 ORDER BY key COLLATE "C"', [prefix.length, prefix]);
      return rows;
    },
    async deleteOlderThan(prefix, before) {
      // a prefix compare, not LIKE: keys may hold % or _
      const { rowCount } = await query(pool, 'DELETE FROM state WHERE left(key, $1) = $2 AND updated_at < $3', [prefix.length, prefix, before]);
      return rowCount ?? 0;
    },
  };
}
