import { afterEach, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '../../helpers/fake-server.js';
import { GATEWAY_TOKEN, eventually } from '../../helpers/start-herald.js';
import { testApp, type TestApp } from '../../http/app-fixture.js';
import { alertTexts, config, platforms as startPlatforms, type Platforms } from '../alert-platforms.js';

/** schedule.failing and schedule.missed raised and resolved on a real herald, their notices reaching the Telegram fake's alerts chat */
let herald: TestApp | undefined;
let fakes: FakeServer[] = [];
afterEach(async () => {
  await herald?.stop();
  herald = undefined;
  await Promise.all(fakes.splice(0).map((f) => f.close()));
});

const fake = async (handler: Parameters<typeof startFakeServer>[0]) => {
  const server = await startFakeServer(handler);
  fakes.push(server);
  return server;
};

async function admin(path: string, method = 'GET', body?: unknown): Promise<any> {
  const res = await herald!.request(`/admin${path}`, { method, headers: { authorization: `Bearer ${GATEWAY_TOKEN}`, 'content-type': 'application/json' }, ...(body !== undefined && { body: JSON.stringify(body) }) });
  expect(res.status, path).toBeLessThan(300);
  return res.json();
}

const settledRun = (runId: string) => eventually(async () => {
  const run = await admin(`/runs/${runId}`);
  return !['queued', 'running'].includes(run.status) && run;
});

const notice = (p: Platforms, prefix: string) => eventually(() => alertTexts(p).find((t) => t.startsWith(prefix)));

const job = (id: string, message: string, schedule: Record<string, unknown>) => ({ id, schedule, sessionTarget: 'isolated', payload: { kind: 'agentTurn', message }, delivery: { mode: 'none' } });

describe('schedule alerts', () => {
  it("schedule.failing: a job's runs failing in a row raise it, naming the job; a run that succeeds resolves it", async () => {
    const p = await startPlatforms(fake);
    herald = await testApp(config(p, { alerts: { rules: [{ on: 'schedule.failing', count: 2 }] } }));
    // once a year: every fire here is a run now
    await admin('/schedules', 'POST', job('nightly-report', 'FAIL report', { kind: 'cron', expr: '0 0 1 1 *', tz: 'UTC' }));
    const runNow = async () => (await admin('/schedules/nightly-report/run', 'POST')).run.id as string;
    expect((await settledRun(await runNow())).status).toBe('failed');
    expect(alertTexts(p)).toEqual([]);
    const last = await settledRun(await runNow());
    expect(await notice(p, 'herald alert: schedule.failing')).toContain(`schedule nightly-report: 2 runs in a row failed (the last: run ${last.id}, failed)`);
    await admin('/schedules/nightly-report', 'PATCH', { payload: { kind: 'agentTurn', message: 'report' } });
    expect((await settledRun(await runNow())).status).toBe('succeeded');
    await notice(p, 'herald resolved: schedule.failing');
    const [alert] = (await admin('/alerts?condition=schedule.failing')).data;
    expect(alert).toMatchObject({ subject: 'schedule nightly-report', status: 'resolved' });
  });

  it('schedule.missed: a fire skipped while the previous run still runs (overlap skip) raises it; a later fire on time resolves it', async () => {
    const p = await startPlatforms(fake);
    herald = await testApp(config(p, { schedules: { minEvery: '1s' }, alerts: { rules: [{ on: 'schedule.missed', schedule: 'poll' }] } }));
    // the model holds every run asking HOLD: the next fire finds the run still running
    await admin('/schedules', 'POST', job('poll', 'HOLD poll', { kind: 'every', every: '1s' }));
    const text = await notice(p, 'herald alert: schedule.missed');
    expect(text).toMatch(/schedule poll: its fire due at \S+ was skipped: the previous run is still queued or running \(overlap: skip\)/);
    const skipped = (await admin('/schedule-runs?schedule=poll&missed=true')).data;
    expect(skipped[0]).toMatchObject({ source: 'schedule poll', outcome: 'skipped', run: null });
    await admin('/schedules/poll', 'PATCH', { payload: { kind: 'agentTurn', message: 'poll' } });
    p.release();
    await notice(p, 'herald resolved: schedule.missed');
    const [alert] = (await admin('/alerts?condition=schedule.missed')).data;
    expect(alert).toMatchObject({ subject: 'schedule poll', status: 'resolved' });
    await admin('/schedules/poll', 'DELETE');
    p.release();
  });
});
