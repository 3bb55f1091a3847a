import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { queuedRun } from './run-record.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { tempDir } from '../helpers/start-herald.js';

const file = () => path.join(tempDir(), 'nested', 'herald.db');


// what only the SQLite adapter does; the port's behaviour is in sqlite.contract.test.ts
describe('sqlite store', () => {
  it('creates its folder, uses WAL and records the schema version', async () => {
    const store = openSqliteStore(file());
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(store.db.pragma('user_version', { simple: true })).toBeGreaterThanOrEqual(1);
    await store.close();
  });

  it('refuses, naming storage.sqlite, a file it cannot open or one a newer herald migrated', async () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, 'a-folder.db'));
    expect(() => openSqliteStore(path.join(dir, 'a-folder.db'))).toThrow(ConfigError);
    expect(() => openSqliteStore(path.join(dir, 'a-folder.db'))).toThrow(/^storage\.sqlite: cannot open /);
    fs.writeFileSync(path.join(dir, 'text.db'), 'not a database, just text that is long enough to have a header');
    expect(() => openSqliteStore(path.join(dir, 'text.db'))).toThrow(/^storage\.sqlite: cannot open /);

    const db = path.join(dir, 'newer.db');
    const store = openSqliteStore(db);
    const known = store.db.pragma('user_version', { simple: true }) as number;
    await store.runs.insert(queuedRun('kept', 1));
    store.db.pragma(`user_version = ${known + 1}`);
    await store.close();
    expect(() => openSqliteStore(db)).toThrow(new RegExp(`storage\\.sqlite: .*schema version ${known + 1}, newer than this herald knows \\(${known}\\)`));
    // refused before touching anything: the data is still there for the newer herald
    const Database = (await import('better-sqlite3')).default;
    const raw = new Database(db);
    expect(raw.prepare('SELECT id FROM runs').all()).toEqual([{ id: 'kept' }]);
    raw.close();
  });
});
