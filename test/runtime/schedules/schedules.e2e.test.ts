import { afterEach, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '../../helpers/fake-server.js';
import { eventually } from '../../helpers/start-herald.js';
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
