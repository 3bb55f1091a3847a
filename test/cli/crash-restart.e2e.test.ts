import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { baseConfig, eventually, GATEWAY_TOKEN, HOOK_TOKEN, tempDir } from '../helpers/start-herald.js';
import { completion } from '../models/fake-openai.js';
import { killLeftOver, spawnHerald, type SpawnedHerald } from './spawn-herald.js';

let spawned: SpawnedHerald | undefined;
afterEach(async () => {
  await killLeftOver(spawned);
  spawned = undefined;
});

/** the rows as the killed process left them, read from its SQLite file */
function stored<T>(file: string, sql: string, ...params: unknown[]): T {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(sql).get(...params) as T;
  } finally {
    db.close();
  }
}

// real processes, a real SIGKILL: generous limits, and no timing threshold (the proof is in stored timestamps)
describe('herald serve on SQLite, back at once after a kill -9', { timeout: 120_000 }, () => {
  it("resumes the dead process's claimed runs at start, before their lease runs out, and answers a retry of a request it was processing", async () => {
    const fake: FakeServer = await startFakeServer(() => 'hang');
    try {
      const dir = tempDir();
      const file = path.join(dir, 'herald.json');
      const dbFile = path.join(dir, 'herald.db');
      fs.mkdirSync(path.join(dir, 'transforms'));
      // holds its request while hold.flag exists: the process dies with the request's Idempotency-Key in progress
      fs.writeFileSync(
        path.join(dir, 'transforms', 'hold.mjs'),
        `import fs from 'node:fs';
export default async () => {
  while (fs.existsSync(new URL('../hold.flag', import.meta.url))) await new Promise((r) => setTimeout(r, 10));
};`,
      );
      fs.writeFileSync(path.join(dir, 'hold.flag'), '');
      const leaseMs = 30_000;
      fs.writeFileSync(
        file,
        JSON.stringify(
          baseConfig({
            storage: { sqlite: dbFile },
            models: { providers: { fake: { api: 'openai', baseUrl: `${fake.url}/v1` } } },
            agents: { defaults: { model: 'fake/test-model', maxConcurrent: 1, leaseMs } },
            hooks: {
              transformTimeoutMs: 120_000,
              mappings: [{ id: 'orders', match: { path: 'orders' }, messageTemplate: 'Order {{ id }}', deliver: false, transform: { module: 'hold.mjs' } }],
            },
          }),
        ),
      );
      spawned = spawnHerald(['serve', '--config', file]);
      let url = (await spawned.waitFor(/herald listening on (http:\/\/\S+)/))[1]!;
      const hook = (name: string, body: unknown, headers: Record<string, string> = {}) =>
        fetch(`${url}/hooks/${name}`, { method: 'POST', headers: { authorization: `Bearer ${HOOK_TOKEN}`, ...headers }, body: JSON.stringify(body) });

      const accepted = await hook('agent', { message: 'Running run', name: 'Running', deliver: false, wakeMode: 'next-heartbeat' });
      expect(accepted.status).toBe(202);
      const { runId } = (await accepted.json()) as { runId: string };
      // the model has the run: it is claimed, under the killed process's lease
      await eventually(() => fake.requests.length === 1);
      const held = hook('orders', { id: 'o-1' }, { 'Idempotency-Key': 'order-o-1' }).catch(() => undefined);
      await eventually(() => stored<{ status: string } | undefined>(dbFile, 'SELECT status FROM idempotency_keys WHERE key = ?', 'order-o-1')?.status === 'in_progress');
      spawned.child.kill('SIGKILL');
      await spawned.exited;
      await held;

      const left = stored<{ status: string; lease_until: number }>(dbFile, 'SELECT status, lease_until FROM runs WHERE id = ?', runId);
      const key = stored<{ status: string; locked_until: number }>(dbFile, 'SELECT status, locked_until FROM idempotency_keys WHERE key = ?', 'order-o-1');
      expect(left.status).toBe('running');
      expect(key.status).toBe('in_progress');

      fs.rmSync(path.join(dir, 'hold.flag'));
      fake.handle(() => ({ body: completion('answered after the crash') }));
      spawned = spawnHerald(['serve', '--config', file]);
      url = (await spawned.waitFor(/herald listening on (http:\/\/\S+)/))[1]!;
      const admin = async (p: string) => (await fetch(`${url}/admin/${p}`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).json() as Promise<any>;

      // the retry of the request the dead process held is processed, not refused as in progress (409)
      const retried = await hook('orders', { id: 'o-1' }, { 'Idempotency-Key': 'order-o-1' });
      expect(retried.status).toBe(202);
      const retriedRun = await admin(`runs/${((await retried.json()) as { runId: string }).runId}`);
      // answered while the dead process's lock on the key still stood
      expect(Date.parse(retriedRun.createdAt)).toBeLessThan(key.locked_until);

      const resumed = await eventually(async () => {
        const r = await admin(`runs/${runId}`);
        return r.status === 'succeeded' && r;
      }, 60_000);
      expect(resumed.reply).toBe('answered after the crash');
      // claimed again and answered by the model before the dead process's lease would have run out
      expect(Date.parse(resumed.startedAt)).toBeLessThan(left.lease_until);
      expect(Date.parse(resumed.finishedAt)).toBeLessThan(left.lease_until);
      expect(spawned.stdout() + spawned.stderr()).toMatch(/took back what the previous process left in progress/);

      spawned.child.kill('SIGTERM');
      expect(await spawned.exited).toBe(0);
    } finally {
      await fake.close();
    }
  });
});
