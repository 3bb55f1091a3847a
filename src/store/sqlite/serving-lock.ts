import fs from 'node:fs';
import Database from 'better-sqlite3';

/**
 * An exclusive lock on `<file>-serving`, a small SQLite file beside the database, taken by the
 * process that serves the database: SQLite's own file lock, which the operating system lets go
 * of when the process ends, however it ends. Undefined when another process (or another handle in
 * this one) holds it. `release` closes it.
 */
export function takeServingLock(file: string): { release(): void } | undefined {
  const lockFile = `${file}-serving`;
  // private like the database: created 0600
  fs.closeSync(fs.openSync(lockFile, 'a', 0o600));
  // no busy wait: a lock held is an answer, not something to wait for
  const lock = new Database(lockFile, { timeout: 0 });
  try {
    lock.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    lock.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') return undefined;
    throw error;
  }
  return { release: () => lock.close() };
}
