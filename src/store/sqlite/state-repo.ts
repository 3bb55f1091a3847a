import type { StateRepo } from '../port.js';
import type { SqliteDatabase } from './open-database.js';

export function sqliteStateRepo(db: SqliteDatabase): StateRepo {
  const get = db.prepare<[string], { value: string }>('SELECT value FROM state WHERE key = ?');
  const set = db.prepare<[string, string, number]>(
    'INSERT INTO state (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
  );
  const remove = db.prepare<[string]>('DELETE FROM state WHERE key = ?');
  // a prefix compare, not LIKE: keys may hold % or _
  const removeOlder = db.prepare<[number, string, number]>('DELETE FROM state WHERE substr(key, 1, ?) = ? AND updated_at < ?');
  const listed = db.prepare<[number, string], { key: string; value: string }>('SELECT key, value FROM state WHERE substr(key, 1, ?) = ? ORDER BY key');
  const read = <T>(key: string) => {
    const row = get.get(key);
    return row ? (JSON.parse(row.value) as T) : undefined;
  };
  // IMMEDIATE: the read and the write happen under one write lock, even across processes
  const update = db.transaction(<T>(key: string, fn: (current: T | undefined) => T) => {
    const next = fn(read<T>(key));
    set.run(key, JSON.stringify(next), Date.now());
    return next;
  });

  return {
    async get(key) {
      return read(key);
    },
    async set(key, value) {
      set.run(key, JSON.stringify(value), Date.now());
    },
    async update(key, fn) {
      return update.immediate(key, fn as (c: unknown) => unknown) as never;
    },
    async delete(key) {
      remove.run(key);
    },
    async list(prefix) {
      return listed.all(prefix.length, prefix).map((row) => ({ key: row.key, value: JSON.parse(row.value) as never }));
    },
    async deleteOlderThan(prefix, before) {
      return removeOlder.run(prefix.length, prefix, before).changes;
    },
  };
}
