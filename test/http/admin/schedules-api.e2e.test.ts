import { afterEach, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '../../helpers/fake-server.js';
import { GATEWAY_TOKEN, eventually } from '../../helpers/start-herald.js';
import { testApp, type TestApp } from '../app-fixture.js';

const admin = { authorization: `Bearer ${GATEWAY_TOKEN}`, 'content-type': 'application/json' };

let fake: FakeServer | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const tick = {
  id: 'tick',
  name: 'Tick',
  schedule: { kind: 'every', every: '2s' },
  sessionTarget: 'isolated',
  payload: { kind: 'agentTurn', message: 'status?' },
  delivery: { mode: 'webhook', to: 'ops' },
};

async function call(app: TestApp, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const response = await app.request(`/admin${path}`, { method, headers: admin, ...(body !== undefined && { body: JSON.stringify(body) }) });
  return { status: response.status, json: await response.json() };
}

/** the run ids the fake webhook channel received */
const delivered = () => fake!.requests.map((r) => (r.json as { runId: string }).runId);

describe('/admin/schedules', () => {
  it('makes a job that fires and is delivered; run now, disable and delete; it survives a restart', async () => {
    fake = await startFakeServer();
    let app = await testApp({
      channels: { webhook: { url: `${fake.url}/inbox` } },
      schedules: {
        minEvery: '1s',
        jobs: [{ id: 'nightly', schedule: { kind: 'cron', expr: '0 3 * * *', tz: 'Europe/Berlin' }, sessionTarget: 'main', payload: { kind: 'systemEvent', text: 'night' } }],
      },
    });

    const created = await call(app, 'POST', '/schedules', tick);
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ id: 'tick', origin: 'api', enabled: true, job: { schedule: { kind: 'every', every: '2s' }, overlap: 'skip' } });
    expect(created.json.nextDueAt).toEqual(expect.any(String));
    expect((await call(app, 'POST', '/schedules', tick)).status).toBe(409);

    // it fires on its own, and the run's reply reaches the webhook channel
    await eventually(() => fake!.requests.length >= 1 || undefined);
    expect(fake.requests[0]!.json).toMatchObject({ to: 'ops', sessionKey: 'cron:tick' });
    const runs = await call(app, 'GET', '/schedules/tick/runs');
    expect(runs.status).toBe(200);
    expect(runs.json.data.map((f: { run: { id: string } }) => f.run.id)).toContain(fake.requests[0]!.json.runId);

    // disabled, it fires no more; run now still makes a run, at once
    const disabled = await call(app, 'PATCH', '/schedules/tick', { enabled: false });
    expect(disabled.json).toMatchObject({ enabled: false, nextDueAt: null });
    const firesBefore = (await call(app, 'GET', '/schedules/tick/runs')).json.data.length;
    const ran = await call(app, 'POST', '/schedules/tick/run');
    expect(ran.status).toBe(200);
    expect(ran.json).toMatchObject({ scheduleId: 'tick', outcome: 'dispatched', detail: 'run now', run: { id: expect.any(String) } });
    await eventually(() => delivered().includes(ran.json.run.id) || undefined);
    const listed = (await call(app, 'GET', '/schedules')).json.data;
    expect(listed.map((s: { id: string; origin: string }) => [s.id, s.origin])).toEqual([
      ['nightly', 'config'],
      ['tick', 'api'],
    ]);

    // stored jobs survive a restart, still disabled: the fires after the run now are none of the schedule's
    app = await app.restart();
    const kept = await call(app, 'GET', '/schedules/tick');
    expect(kept.json).toMatchObject({ id: 'tick', origin: 'api', enabled: false });
    const fires = (await call(app, 'GET', '/schedules/tick/runs')).json.data;
    expect(fires.length).toBe(firesBefore + 1);
    expect(fires[0]).toMatchObject({ detail: 'run now' });

    // delete removes it; a config job is the config's
    expect((await call(app, 'DELETE', '/schedules/tick')).json).toEqual({ id: 'tick', deleted: true });
    expect((await call(app, 'GET', '/schedules/tick')).status).toBe(404);
    const configJob = await call(app, 'DELETE', '/schedules/nightly');
    expect(configJob.status).toBe(409);
    expect(configJob.json.error).toMatch(/config/);
    expect((await call(app, 'PATCH', '/schedules/nightly', { enabled: false })).status).toBe(409);
    expect((await call(app, 'POST', '/schedules/nightly/run')).json).toMatchObject({ outcome: 'dispatched', run: null });
  });

  it('refuses bad input naming the field, and stores nothing', async () => {
    const app = await testApp({ schedules: { minEvery: '10s' } });
    const bad = async (job: Record<string, unknown>, field: string) => {
      const answer = await call(app, 'POST', '/schedules', { ...tick, schedule: { kind: 'every', every: '1h' }, delivery: { mode: 'none' }, ...job });
      expect(answer.status).toBe(400);
      expect(answer.json.error).toMatch(new RegExp(`^${field.replace(/\./g, '\\.')}\\b`));
    };
    await bad({ schedule: { kind: 'cron', expr: '61 * * * *' } }, 'schedule.expr');
    await bad({ schedule: { kind: 'cron', expr: '0 7 * * *', tz: 'Mars/Olympus' } }, 'schedule.tz');
    await bad({ schedule: { kind: 'at', at: '2020-01-01T00:00:00Z' } }, 'schedule.at');
    await bad({ schedule: { kind: 'every', every: '2s' } }, 'schedule.every');
    await bad({ payload: { kind: 'agentTurn', message: 'hi', agentId: 'nobody' } }, 'payload.agentId');
    await bad({ sessionTarget: 'main' }, 'payload.kind');
    await bad({ delivery: { mode: 'announce', channel: 'carrier-pigeon' } }, 'delivery.channel');
    await bad({ id: 'no spaces' }, 'id');
    expect((await call(app, 'GET', '/schedules')).json.data).toEqual([]);
    expect((await call(app, 'GET', '/schedules/nothing')).status).toBe(404);

    const made = await call(app, 'POST', '/schedules', { ...tick, schedule: { kind: 'every', every: '1h' }, delivery: { mode: 'none' } });
    expect(made.status).toBe(201);
    const changed = await call(app, 'PATCH', '/schedules/tick', { schedule: { kind: 'cron', expr: 'nope' } });
    expect(changed.status).toBe(400);
    expect(changed.json.error).toMatch(/^schedule\.expr/);
    expect((await call(app, 'GET', '/schedules/tick')).json.job.schedule).toEqual({ kind: 'every', every: '1h' });
    const moved = await call(app, 'PATCH', '/schedules/tick', { schedule: { kind: 'cron', expr: '0 7 * * *', tz: 'Europe/Berlin' }, name: 'Morning' });
    expect(moved.json).toMatchObject({ job: { name: 'Morning', schedule: { kind: 'cron', expr: '0 7 * * *' } } });
  });
});
