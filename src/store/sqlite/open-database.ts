import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { migrations as coreMigrations, type Migration } from './migrations.js';

export type SqliteDatabase = Database.Database;

/** Opens (creating its folder) and migrates the database; WAL so readers never block the writer. */
export function openDatabase(file: string, migrations: Migration[] = coreMigrations): SqliteDatabase {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  migrate(db, migrations);
  return db;
}

function migrate(db: SqliteDatabase, migrations: Migration[]): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  const ordered = [...migrations].sort((a, b) => a.version - b.version);
  for (const migration of ordered) {
    if (migration.version <= current) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      db.pragma(`user_version = ${migration.version}`);
    })();
  }
}
