import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/start-herald.js';

// bench/async-steps.bench.ts reads a server's promises and allocation per request from this
// preload: what it counts between the two signals must be the process's own work, and only that.
/** runs `script` with the preload and returns what it wrote */
function countedRun(script: string, env: Record<string, string> = {}): unknown {
  const out = path.join(tempDir('herald-async-steps-'), 'counted.json');
  const ran = spawnSync(process.execPath, ['--import', path.resolve('bench/async-steps-preload.mjs'), '--input-type=module', '-e', script], {
    env: { ...process.env, ASYNC_STEPS_OUT: out, ...env },
    encoding: 'utf8',
    timeout: 20_000,
  });
  expect(ran.status, ran.stderr).toBe(0);
  return JSON.parse(fs.readFileSync(out, 'utf8'));
}

describe('the async-steps preload', () => {
  it('counts the promises made and the bytes allocated between two SIGUSR2s, and nothing outside them', () => {
    const script = `
      const made = async (n) => { for (let i = 0; i < n; i++) await Promise.resolve(i); };
      await made(500); // before the first signal: not counted
      process.kill(process.pid, 'SIGUSR2');
      await new Promise((r) => setTimeout(r, 50));
      await made(1000);
      const kept = Array.from({ length: 20000 }, (_, i) => ({ i, text: 'x'.repeat(50) + i }));
      process.kill(process.pid, 'SIGUSR2');
      await made(500); // after the second: not counted either
      await new Promise((r) => setTimeout(r, 500));
      if (!kept.length) process.exit(1);
    `;
    const counted = countedRun(script) as { promises: number; allocated: number; top: [string, number][] };
    // each step of the counted loop: the resolved promise and the await's (and the async function's own)
    expect(counted.promises).toBeGreaterThanOrEqual(1000);
    expect(counted.promises).toBeLessThan(3500);
    // 20,000 objects and strings of about 60 characters: well over a megabyte
    expect(counted.allocated).toBeGreaterThan(1_000_000);
    expect(counted.top.length).toBeGreaterThan(0);
  });

  it("counts better-sqlite3's statements and commits between the two signals", () => {
    const script = `
      const { default: Database } = await import('better-sqlite3');
      const db = new Database(':memory:');
      db.exec('CREATE TABLE t (x)');
      const insert = db.prepare('INSERT INTO t VALUES (?)');
      const count = db.prepare('SELECT count(*) AS n FROM t');
      const ten = db.transaction((from) => { for (let i = from; i < from + 10; i++) insert.run(i); });
      ten(0); // before the first signal: not counted
      process.kill(process.pid, 'SIGUSR2');
      await new Promise((r) => setTimeout(r, 50));
      ten(10);
      ten(20);
      count.get();
      process.kill(process.pid, 'SIGUSR2');
      // a signal is handled from the event loop: after this wait counting has stopped
      await new Promise((r) => setTimeout(r, 50));
      ten(30);
      await new Promise((r) => setTimeout(r, 500));
    `;
    const counted = countedRun(script, { ASYNC_STEPS_SITES: '1' }) as { statements: number; commits: number; statementTop: [string, number][] };
    // two transactions of ten inserts, each opened by a BEGIN, and the count, run outside a transaction (marked)
    expect(counted.commits).toBe(2);
    expect(counted.statements).toBe(23);
    expect(Object.fromEntries(counted.statementTop)).toEqual({ 'INSERT INTO t VALUES (?)': 20, BEGIN: 2, COMMIT: 2, '(alone) SELECT count(*) AS n FROM t': 1 });
  });
});
