import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { ConfigError } from '../../errors.js';
import { migrations as coreMigrations, type Migration } from './migrations.js';

export type SqliteDatabase = Database.Database;

/**
 * Opens (creating its folder) and migrates the database; WAL so readers never block the writer.
 * A file that cannot be opened, or that a newer herald migrated, refuses the start naming `storage.sqlite`.
 */
export function openDatabase(file: string, migrations: Migration[] = coreMigrations): SqliteDatabase {
  let db: SqliteDatabase;
  try {
    if (file !== ':memory:') createPrivately(file);
    db = new Database(file);
    db.pragma('journal_mode = WAL');
    if (file !== ':memory:') for (const f of [file, `${file}-wal`, `${file}-shm`]) if (fs.existsSync(f)) fs.chmodSync(f, 0o600);
  } catch (error) {
    throw new ConfigError([`storage.sqlite: cannot open ${file}: ${(error as Error).message}`]);
  }
  db.pragma('synchronous = NORMAL');
  // 4 MiB of page cache, not better-sqlite3's 16: a B-tree split that reorders its new pages
  // parks one under the locking page's number (page 262,145), and the commit after it walks the
  // whole cache's hash table to drop what lies past the file's end, a walk as long as the cache
  // is large. The run path reads no more pages back at 4 MiB (a claim or a completion needs the
  // newest pages, or ones long evicted at either size); what it costs a list: docs/performance.md
  db.pragma('cache_size = -4000');
  // statement and savepoint journals in memory: the group commit nests every write as a savepoint
  // (a failing one fails alone) and triggered statements open their own; SQLite truncates such a
  // journal only in memory, so on a file it would grow through the whole transaction (once past
  // 64 KiB) with a write for each page a savepoint first touched.
  // A journal holds only the pages one transaction changes; temporary tables and sorts go to
  // memory too, and herald's queries sort small, bounded results (indexes serve the large lists)
  db.pragma('temp_store = MEMORY');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  try {
    migrate(db, migrations, file);
  } catch (error) {
    db.close();
    throw error;
  }
  // A migration that renamed a table opened the connection's temp database (SQLite's ALTER TABLE
  // RENAME updates the temp schema's triggers), and an open temp database takes part in every
  // transaction after: BEGIN IMMEDIATE begins a write on it too, its page 1 read and its page
  // cache dropped at each commit. Changing temp_store closes it (setting the value it has is a
  // no-op, hence the round trip); it opens again only if something needs it.
  db.pragma('temp_store = DEFAULT');
  db.pragma('temp_store = MEMORY');
  return db;
}

/**
 * The database holds conversations and transcripts: a folder herald creates for it is 0700 and
 * the file 0600 (SQLite gives its -wal and -shm files the database file's mode). A folder that
 * already exists is left as it is: it may be the project folder, shared with other things.
 */
function createPrivately(file: string): void {
  const dir = path.dirname(file);
  if (!fs.existsSync(dir)) fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.closeSync(fs.openSync(file, 'a', 0o600));
  fs.chmodSync(file, 0o600);
}

/**
 * Opens an existing database read-only, beside the process that serves it (WAL lets a reader in
 * at any time): nothing is created or migrated, and one at another version is refused, since its
 * tables may not have the shapes this herald reads.
 */
export function openDatabaseReadOnly(file: string, migrations: Migration[] = coreMigrations): SqliteDatabase {
  let db: SqliteDatabase;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new ConfigError([`storage.sqlite: cannot open ${file} read-only: ${(error as Error).message}`]);
  }
  const current = db.pragma('user_version', { simple: true }) as number;
  const latest = Math.max(0, ...migrations.map((m) => m.version));
  if (current !== latest) {
    db.close();
    throw new ConfigError([`storage.sqlite: ${file} has schema version ${current}, this herald reads ${latest}; start herald serve on it once to migrate`]);
  }
  db.pragma('cache_size = -4000');
  db.pragma('temp_store = MEMORY');
  db.pragma('busy_timeout = 5000');
  return db;
}

function migrate(db: SqliteDatabase, migrations: Migration[], file: string): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  const ordered = [...migrations].sort((a, b) => a.version - b.version);
  const latest = ordered.at(-1)?.version ?? 0;
  // an older herald would read and write tables it does not know the shape of
  if (current > latest) {
    throw new ConfigError([`storage.sqlite: ${file} has schema version ${current}, newer than this herald knows (${latest}); run a newer herald or use another file`]);
  }
  for (const migration of ordered) {
    if (migration.version <= current) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      db.pragma(`user_version = ${migration.version}`);
    })();
  }
}
