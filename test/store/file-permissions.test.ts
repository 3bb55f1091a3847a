import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { tempDir } from '../helpers/start-herald.js';

const mode = (file: string) => fs.statSync(file).mode & 0o777;

describe('files at rest', () => {
  it('creates the data folder 0700 and the database files 0600, whatever the umask', async () => {
    const previous = process.umask(0o022);
    try {
      const dir = tempDir();
      const file = path.join(dir, 'data', 'nested', 'herald.db');
      const store = openSqliteStore(file);
      await store.state.set('probe', 'x');
      expect(mode(path.join(dir, 'data'))).toBe(0o700);
      expect(mode(path.join(dir, 'data', 'nested'))).toBe(0o700);
      for (const f of [file, `${file}-wal`, `${file}-shm`].filter((f) => fs.existsSync(f))) expect(mode(f), f).toBe(0o600);
      expect(fs.existsSync(`${file}-wal`)).toBe(true);
      await store.close();
    } finally {
      process.umask(previous);
    }
  });

  it('tightens an existing database file, and leaves an existing folder alone', async () => {
    const dir = tempDir();
    fs.chmodSync(dir, 0o755);
    const file = path.join(dir, 'herald.db');
    fs.writeFileSync(file, '');
    fs.chmodSync(file, 0o644);
    const store = openSqliteStore(file);
    expect(mode(file)).toBe(0o600);
    expect(mode(dir)).toBe(0o755);
    await store.close();
  });
});
