import { afterEach, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '../../helpers/fake-server.js';
import { GATEWAY_TOKEN, baseConfig, eventually, startHerald } from '../../helpers/start-herald.js';
import { testApp, type TestApp } from '../../http/app-fixture.js';

let fake: FakeServer | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe('schedules on the gateway (a real clock, a short every)', () => {
  it('fires a config job as a run of its own session, delivered to the webhook channel, once per due time', async () => {
    fake = await startFakeServer();
    const herald: TestApp = await testApp({
      channels: { webhook: { url: `${fake.url}/inbox` } },
      schedules: {
        minEvery: '1s',
        jobs: [{ id: 'tick', name: 'Tick', schedule: { kind: 'every', every: '1s' }, sessionTarget: 'isolated', payload: { kind: 'agentTurn', message: 'status?' }, delivery: { mode: 'webhook', to: 'ops' } }],
      },
    });
    const { store } = herald.gateway;
    await eventually(() => fake!.requests.length >= 2 || undefined);
    const body = fake.requests[0]!.json as { runId: string; to: string; sessionKey: string };
    expect(body).toMatchObject({ to: 'ops', sessionKey: 'cron:tick' });
    const run = await store.runs.get(body.runId);
    expect(run).toMatchObject({ name: 'Tick', sessionKey: 'cron:tick', action: { source: { mappingId: 'schedule:tick' }, schedule: { id: 'tick' } } });
    const fires = await store.schedules.fires('tick', 100);
    const dues = fires.map((f) => f.dueAt);
    expect(new Set(dues).size).toBe(dues.length);
    const runIds = fires.flatMap((f) => (f.runId ? [f.runId] : []));
    expect(new Set(runIds).size).toBe(runIds.length);
    expect(runIds).toContain(body.runId);
  });
});

describe('a job made through the admin API, on a real socket and a real clock', () => {
  it('fires on its own and its reply reaches the channel; its fires are receipts with due time, start and lag; run now, disable and delete work', async () => {
    fake = await startFakeServer();
    const herald = await startHerald(baseConfig({ channels: { webhook: { url: `${fake.url}/inbox` } }, schedules: { minEvery: '1s' } }));
    try {
      const admin = async (p: string, method = 'GET', body?: unknown) => {
        const res = await fetch(`${herald.url}/admin${p}`, { method, headers: { authorization: `Bearer ${GATEWAY_TOKEN}`, 'content-type': 'application/json' }, ...(body !== undefined && { body: JSON.stringify(body) }) });
        return { status: res.status, body: (await res.json()) as any };
      };
      const job = { id: 'pulse', name: 'Pulse', schedule: { kind: 'every', every: '1s' }, sessionTarget: 'isolated', payload: { kind: 'agentTurn', message: 'pulse?' }, delivery: { mode: 'webhook', to: 'ops' } };
      expect((await admin('/schedules', 'POST', job)).status).toBe(201);

      // it fires on its own; the run's reply reaches the webhook channel
      const first = await eventually(() => fake!.requests.find((r) => (r.json as { sessionKey?: string }).sessionKey === 'cron:pulse'));
      const { runId } = first.json as { runId: string };
      const [fire] = (await admin(`/schedule-runs?run=${runId}`)).body.data;
      expect(fire).toMatchObject({ source: 'schedule pulse', scheduleId: 'pulse', outcome: 'dispatched', detail: null, run: { id: runId, status: 'succeeded' } });
      expect(fire.lagMs).toBe(Date.parse(fire.startedAt) - Date.parse(fire.dueAt));
      expect(fire.lagMs).toBeGreaterThanOrEqual(0);
      // the run names the fire that made it, as a hook run names its request's receipt
      expect((await admin(`/runs/${runId}`)).body).toMatchObject({ receipt: null, fire: { source: 'schedule pulse', dueAt: fire.dueAt, lagMs: fire.lagMs } });
      const metrics = await (await fetch(`${herald.url}/metrics`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).text();
      expect(metrics).toMatch(/^herald_schedule_fires_total\{schedule="pulse",outcome="dispatched"\} [1-9]/m);
      expect(metrics).toMatch(/^herald_schedule_lag_seconds_count [1-9]/m);

      // disabled: no next fire; run now still makes a run, delivered, the newest fire
      expect((await admin('/schedules/pulse', 'PATCH', { enabled: false })).body).toMatchObject({ enabled: false, nextDueAt: null });
      const ran = (await admin('/schedules/pulse/run', 'POST')).body;
      expect(ran).toMatchObject({ source: 'schedule pulse', outcome: 'dispatched', detail: 'run now', lagMs: 0 });
      await eventually(() => fake!.requests.some((r) => (r.json as { runId?: string }).runId === ran.run.id));
      const fires = (await admin('/schedule-runs?schedule=pulse')).body.data;
      expect(fires[0]).toMatchObject({ detail: 'run now', run: { id: ran.run.id } });

      // deleted: gone from the admin API, its fires kept as history
      expect((await admin('/schedules/pulse', 'DELETE')).body).toEqual({ id: 'pulse', deleted: true });
      expect((await admin('/schedules/pulse')).status).toBe(404);
      expect((await admin('/schedule-runs?schedule=pulse')).body.data.length).toBe(fires.length);
    } finally {
      await herald.stop();
    }
  });
});
