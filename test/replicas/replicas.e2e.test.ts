import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnHerald, type SpawnedHerald } from '../cli/spawn-herald.js';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { dropSchema, PG_URL, requirePostgres, uniqueSchema } from '../helpers/postgres.js';
import { baseConfig, eventually, HOOK_TOKEN, tempDir } from '../helpers/start-herald.js';
import { completion } from '../models/fake-openai.js';

/**
 * Three `herald serve` processes (the real CLI) on one PostgreSQL schema, a load spread over
 * them, one SIGKILLed in the middle and started again. What was accepted is kept and done once.
 */
describe('three replicas on one PostgreSQL database', () => {
  const schema = uniqueSchema('herald_replicas');
  let model: FakeServer;
  let channel: FakeServer;
  let db: pg.Client;
  let file: string;
  const replicas: (SpawnedHerald | undefined)[] = [];
  const urls: (string | undefined)[] = [];
  /** heartbeat model calls in flight right now, and the most ever at once */
  const heartbeats = { inFlight: 0, most: 0, total: 0 };

  beforeAll(async () => {
    await requirePostgres();
    model = await startFakeServer(async (request) => {
      const messages = (request.json?.messages ?? []) as { role: string; content: string }[];
      const last = messages.at(-1)?.content ?? '';
      if (last.startsWith('Heartbeat.')) {
        heartbeats.total++;
        heartbeats.most = Math.max(heartbeats.most, ++heartbeats.inFlight);
        // long enough that two turns would overlap if two replicas ran them at once
        await new Promise((r) => setTimeout(r, 60));
        heartbeats.inFlight--;
        return { body: completion('HEARTBEAT_OK') };
      }
      const task = /task-\d+/.exec(last)?.[0] ?? 'unknown';
      return { body: completion(`done ${task}`), delayMs: 40 };
    });
    // a Standard Webhooks receiver: `webhook-id` is its idempotency key (the delivery id)
    channel = await startFakeServer(() => ({ status: 200, body: { ok: true } }));
    db = new pg.Client({ connectionString: PG_URL });
    await db.connect();
    const dir = tempDir();
    file = path.join(dir, 'herald.json');
    const config = baseConfig({
      storage: { postgres: { url: PG_URL, schema } },
      heartbeat: { every: '0', coalesceMs: 20 },
      models: { providers: { fake: { api: 'openai', baseUrl: `${model.url}/v1` } } },
      // a killed replica's runs and heartbeat are retaken within this
      agents: { defaults: { model: 'fake/test-model', maxConcurrent: 4, leaseMs: 1500 } },
      channels: { webhook: { url: `${channel.url}/inbox` } },
      delivery: { baseDelayMs: 50, requestTimeoutMs: 750, leaseMs: 1500 },
    });
    fs.writeFileSync(file, JSON.stringify(config));
    for (let i = 0; i < 3; i++) await start(i);
  }, 120_000);

  afterAll(async () => {
    for (const r of replicas) {
      r?.child.kill('SIGTERM');
      await r?.exited;
    }
    await db?.end();
    await model?.close();
    await channel?.close();
    await dropSchema(schema);
  }, 60_000);

  async function start(i: number): Promise<void> {
    replicas[i] = spawnHerald(['serve', '--config', file]);
    urls[i] = (await replicas[i]!.waitFor(/herald listening on (http:\/\/\S+)/))[1]!;
  }

  async function post(i: number, hook: string, body: unknown): Promise<{ status: number; json: any } | undefined> {
    const url = urls[i];
    if (!url) return undefined;
    try {
      const res = await fetch(`${url}/hooks/${hook}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${HOOK_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, json: await res.json().catch(() => undefined) };
    } catch {
      return undefined; // the replica is down: not accepted
    }
  }

  it('keeps every accepted request, runs each once, delivers each once, and never overlaps heartbeats', async () => {
    const accepted = { runs: new Map<string, string>(), wakes: [] as string[], byReplica: [0, 0, 0] };
    const total = 120;
    let next = 0;
    let killed = false;
    const worker = async () => {
      for (let n = next++; n < total; n = next++) {
        if (n === Math.floor(total / 3) && !killed) {
          killed = true;
          // mid-load: replica 1 dies with runs, maybe a heartbeat and deliveries in its hands
          replicas[1]!.child.kill('SIGKILL');
          urls[1] = undefined;
          await replicas[1]!.exited;
          void start(1);
        }
        const i = n % 3;
        if (n % 3 === 2) {
          const text = `wake-${n}`;
          const res = await post(i, 'wake', { text, mode: 'now' });
          if (res?.status === 200) (accepted.wakes.push(text), accepted.byReplica[i]!++);
        } else {
          const task = `task-${n}`;
          const res = await post(i, 'agent', { message: `please do ${task}`, name: 'Load', channel: 'webhook', wakeMode: n % 5 === 0 ? 'now' : 'next-heartbeat' });
          if (res?.status === 202) (accepted.runs.set(res.json.runId, task), accepted.byReplica[i]!++);
        }
      }
    };
    await Promise.all(Array.from({ length: 6 }, worker));
    await eventually(() => urls[1] !== undefined, 60_000);

    const ids = [...accepted.runs.keys()];
    expect(ids.length).toBeGreaterThan(40);
    expect(accepted.byReplica.every((n) => n > 0)).toBe(true);

    const q = async <R extends pg.QueryResultRow>(sql: string, values: unknown[] = []) => (await db.query<R>(sql.replaceAll('$schema', schema), values)).rows;
    // every accepted run finishes (the dead replica's once its lease ran out) and is delivered
    await eventually(async () => {
      const [row] = await q<{ n: number }>("SELECT COUNT(*)::int AS n FROM $schema.runs WHERE id = ANY($1) AND status NOT IN ('queued', 'running')", [ids]);
      return row!.n === ids.length;
    }, 90_000, 200);
    const unsuccessful = await q<{ id: string; status: string; error: string | null }>("SELECT id, status, error FROM $schema.runs WHERE id = ANY($1) AND status <> 'succeeded'", [ids]);
    expect(unsuccessful).toEqual([]);
    await eventually(async () => {
      const [row] = await q<{ n: number }>("SELECT COUNT(*)::int AS n FROM $schema.deliveries WHERE run_id = ANY($1) AND status = 'delivered'", [ids]);
      return row!.n === ids.length;
    }, 90_000, 200);

    // finished exactly once: one transcript (user + assistant) and one summary per run
    const transcripts = await q<{ run_id: string; n: number }>('SELECT run_id, COUNT(*)::int AS n FROM $schema.session_messages WHERE run_id = ANY($1) GROUP BY run_id', [ids]);
    expect(transcripts).toHaveLength(ids.length);
    expect(transcripts.filter((t) => t.n !== 2)).toEqual([]);
    const summaries = await q<{ text: string; n: number }>("SELECT text, COUNT(*)::int AS n FROM $schema.events WHERE text LIKE 'Hook Load%' AND untrusted GROUP BY text");
    const byTask = new Map(summaries.map((s) => [s.text, s.n]));
    for (const task of accepted.runs.values()) expect(byTask.get(`Hook Load: done ${task}`), task).toBe(1);

    // every accepted wake is stored
    const wakes = await q<{ text: string }>('SELECT text FROM $schema.events WHERE text = ANY($1)', [accepted.wakes]);
    expect(wakes.map((w) => w.text).sort()).toEqual([...accepted.wakes].sort());

    // one delivery per run, reaching the channel under one webhook-id (the receiver's idempotency key)
    const deliveries = await q<{ id: string; run_id: string }>('SELECT id, run_id FROM $schema.deliveries WHERE run_id = ANY($1)', [ids]);
    expect(deliveries).toHaveLength(ids.length);
    const received = channel.requests.filter((r) => r.path === '/inbox' && ids.includes(r.json?.runId));
    const idsByRun = new Map<string, Set<string>>();
    for (const r of received) idsByRun.set(r.json.runId, (idsByRun.get(r.json.runId) ?? new Set()).add(String(r.headers['webhook-id'])));
    expect(idsByRun.size).toBe(ids.length);
    for (const d of deliveries) expect([...idsByRun.get(d.run_id)!]).toEqual([d.id]);
    for (const [id, task] of accepted.runs) expect(received.find((r) => r.json.runId === id)!.json.text).toBe(`done ${task}`);

    // the heartbeat ran, and never two turns at once across the replicas
    expect(heartbeats.total).toBeGreaterThan(0);
    expect(heartbeats.most).toBe(1);

    // what the kill did, for whoever reads the log (the figures vary; nothing is asserted on them)
    const calls = new Map<string, number>();
    for (const r of model.requests) {
      const task = /task-\d+/.exec(String(r.json?.messages?.at(-1)?.content ?? ''))?.[0];
      if (task) calls.set(task, (calls.get(task) ?? 0) + 1);
    }
    const retaken = [...calls.values()].filter((n) => n > 1).length;
    console.info(
      `replicas: ${ids.length} runs and ${accepted.wakes.length} wakes accepted (per replica ${accepted.byReplica.join('/')}); ` +
        `${retaken} runs called the model again after the kill; ${heartbeats.total} heartbeat turns; ${received.length} channel requests for ${ids.length} deliveries`,
    );
  }, 240_000);
});
