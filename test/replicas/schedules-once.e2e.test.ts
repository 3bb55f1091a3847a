import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnHerald, type SpawnedHerald } from '../cli/spawn-herald.js';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { dropSchema, PG_URL, requirePostgres, uniqueSchema } from '../helpers/postgres.js';
import { baseConfig, eventually, tempDir } from '../helpers/start-herald.js';
import { completion } from '../models/fake-openai.js';

/**
 * Three `herald serve` processes (the real CLI) on one PostgreSQL schema, a job every second for
 * a minute, one replica SIGKILLed twice and started again: each due time is fired by one replica,
 * and makes one run; none is missing, none is made twice.
 */
describe('a schedule on three replicas sharing PostgreSQL', () => {
  const schema = uniqueSchema('herald_sched');
  const replicas: (SpawnedHerald | undefined)[] = [];
  let model: FakeServer | undefined;
  let db: pg.Client | undefined;
  let file: string;

  afterAll(async () => {
    for (const r of replicas) {
      r?.child.kill('SIGTERM');
      await r?.exited;
    }
    await db?.end();
    await model?.close();
    await dropSchema(schema);
  }, 60_000);

  async function start(i: number): Promise<void> {
    replicas[i] = spawnHerald(['serve', '--config', file]);
    await replicas[i]!.waitFor(/herald listening on (http:\/\/\S+)/);
  }

  async function kill(i: number): Promise<void> {
    replicas[i]!.child.kill('SIGKILL');
    await replicas[i]!.exited;
  }

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('one run per due fire for a minute, through two kill -9s: none missing, none twice', async () => {
    await requirePostgres();
    model = await startFakeServer(() => ({ body: completion('all quiet') }));
    db = new pg.Client({ connectionString: PG_URL });
    await db.connect();
    file = path.join(tempDir(), 'herald.json');
    const config = baseConfig({
      storage: { postgres: { url: PG_URL, schema } },
      heartbeat: { every: '0' },
      models: { providers: { fake: { api: 'openai', baseUrl: `${model.url}/v1` } } },
      // a killed replica's runs are retaken within this
      agents: { defaults: { model: 'fake/test-model', leaseMs: 1500 } },
      schedules: {
        minEvery: '1s',
        // a fire the killed replica claimed but never made is made by another within this
        retakeAfter: '3s',
        jobs: [{ id: 'tick', schedule: { kind: 'every', every: '1s' }, sessionTarget: 'isolated', payload: { kind: 'agentTurn', message: 'anything new?' }, delivery: { mode: 'none' }, overlap: 'queue' }],
      },
    });
    fs.writeFileSync(file, JSON.stringify(config));
    for (let i = 0; i < 3; i++) await start(i);

    await sleep(20_000);
    await kill(1);
    await start(1);
    await sleep(20_000);
    await kill(1);
    await start(1);
    await sleep(20_000);
    const end = Date.now();

    const q = (sql: string) => db!.query(sql.replaceAll('$schema', schema));
    // every fire due before the end made (a killed replica's claim is retaken within retakeAfter), and its run finished
    const { fires, runs } = await eventually(
      async () => {
        const fires = (await q(`SELECT due_at::bigint AS due, outcome, run_id FROM $schema.schedule_fires WHERE schedule_id = 'tick' AND due_at <= ${end} ORDER BY due_at`)).rows;
        const runs = (await q(`SELECT id, status, (action->'schedule'->>'dueAt')::bigint AS due FROM $schema.runs WHERE action->'schedule'->>'id' = 'tick' AND (action->'schedule'->>'dueAt')::bigint <= ${end}`)).rows;
        const done = fires.every((f) => f.outcome === 'dispatched') && runs.length >= fires.length && runs.every((r) => r.status === 'succeeded');
        return done ? { fires, runs } : undefined;
      },
      30_000,
      200,
    );
    const dues = fires.map((f) => Number(f.due));
    // a minute of seconds, each due time fired once: contiguous, one second apart
    expect(dues.length).toBeGreaterThanOrEqual(55);
    expect(dues.slice(1).map((due, k) => due - dues[k]!)).toEqual(dues.slice(1).map(() => 1000));
    // one run per fire, under the id its claim chose, and no run for any due time twice
    expect(runs.map((r) => Number(r.due)).sort((a, b) => a - b)).toEqual(dues);
    expect(new Set(runs.map((r) => r.id))).toEqual(new Set(fires.map((f) => f.run_id)));
  }, 300_000);
});
