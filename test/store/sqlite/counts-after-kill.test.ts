import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import { tempDir } from '../../helpers/start-herald.js';

const WRITER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'count-writer.ts');

/** the counts /metrics reads, and the same counted from the tables */
function countsAndTables(file: string) {
  const store = openSqliteStore(file);
  try {
    const counted = (table: string, status: string) =>
      (store.db.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE status = ?`).get(status) as { n: number }).n;
    const kept = Object.fromEntries((store.db.prepare('SELECT name, n FROM store_counts').all() as { name: string; n: number }[]).map((r) => [r.name, r.n]));
    const names = ['runs:queued', 'runs:running', 'events:pending', 'events:dropped'];
    return {
      kept: Object.fromEntries(names.map((name) => [name, kept[name]])),
      tables: Object.fromEntries(names.map((name) => [name, counted(...(name.split(':') as [string, string]))])),
    };
  } finally {
    void store.close();
  }
}

// the group commit writes the counts of runs and events with the rows (count-deltas.ts): a process
// killed at any point leaves counts that agree with its rows
describe('store counts after a kill -9 (SQLite)', { timeout: 60_000 }, () => {
  it('agree with the rows a writer killed in the middle of its writes left', async () => {
    const file = path.join(tempDir(), 'herald.db');
    for (let kill = 0; kill < 3; kill++) {
      const child = spawn(process.execPath, ['--import', 'tsx', WRITER, file], { stdio: ['ignore', 'pipe', 'inherit'] });
      const exited = new Promise((resolve) => child.once('exit', resolve));
      // killed after some rounds, a different number each time: somewhere among its writes
      const rounds = 20 + kill * 17;
      await new Promise<void>((resolve, reject) => {
        let wrote = 0;
        child.stdout.on('data', (chunk: Buffer) => {
          wrote += chunk.toString().split('\n').filter((line) => line.startsWith('wrote')).length;
          if (wrote >= rounds) resolve();
        });
        child.once('exit', (code) => reject(new Error(`the writer ended by itself (${code})`)));
      });
      child.kill('SIGKILL');
      await exited;
      const { kept, tables } = countsAndTables(file);
      expect(tables['runs:queued']).toBeGreaterThan(0);
      expect(tables['events:dropped']).toBeGreaterThan(0);
      expect(kept).toEqual(tables);
    }
  });
});
