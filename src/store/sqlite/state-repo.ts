import type { StateRepo } from '../port.js';
import type { GroupCommit } from './group-commit.js';
import type { SqliteDatabase } from './open-database.js';

/**
 * State over SQLite. A set or a delete is a group commit's work: the many written at once (the
 * /mcp stream events of concurrent calls) share a commit; resolved means durable, as before. An
 * update is one too: its read and write run in the group's IMMEDIATE transaction, under one lock
 * across processes, and in the order asked with the sets and deletes (the group keeps it).
 */
export function sqliteStateRepo(db: SqliteDatabase, commits: GroupCommit): StateRepo {
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
  // in the group's transaction (BEGIN IMMEDIATE): the read and the write happen under one write lock, even across processes
  const update = <T>(key: string, fn: (current: T | undefined) => T) => {
    const next = fn(read<T>(key));
    set.run(key, JSON.stringify(next), Date.now());
    return next;
  };

  return {
    async get(key) {
      return read(key);
    },
    async set(key, value) {
      const json = JSON.stringify(value);
      const at = Date.now();
      await commits.run(() => set.run(key, json, at));
    },
    async update(key, fn) {
      return commits.run(() => update(key, fn as (c: unknown) => unknown)) as never;
    },
    async delete(key) {
      await commits.run(() => remove.run(key));
    },
    async list(prefix) {
      return listed.all(prefix.length, prefix).map((row) => ({ key: row.key, value: JSON.parse(row.value) as never }));
    },
    async deleteOlderThan(prefix, before) {
      return removeOlder.run(prefix.length, prefix, before).changes;
    },
  };
}
