import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfigValue } from '../helpers/builtins.js';
import { startFakeServer } from '../helpers/fake-server.js';
import { GATEWAY_TOKEN, eventually, tempDir } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';

/** the JSON examples of OpenClaw's docs/automation/cron-jobs.md, as printed (test/fixtures/openclaw-cron/README.md) */
const fixture = (name: string): Record<string, any> => JSON.parse(readFileSync(path.join(import.meta.dirname, '../fixtures/openclaw-cron', name), 'utf8'));
const reminder = fixture('cron-add-reminder.json');
const morningBrief = fixture('cron-add-morning-brief.json');
const update = fixture('cron-update.json');

/** the channel the morning brief announces to, configured as any slack channel is */
const channels = { slack: { botToken: 'xoxb-openclaw-fixtures' } };
const admin = { authorization: `Bearer ${GATEWAY_TOKEN}`, 'content-type': 'application/json' };

async function call(app: TestApp, method: string, route: string, body?: unknown): Promise<{ status: number; json: any }> {
  const response = await app.request(`/admin${route}`, { method, headers: admin, ...(body !== undefined && { body: JSON.stringify(body) }) });
  return { status: response.status, json: await response.json() };
}

const storedReminder = {
  id: 'reminder',
  name: 'Reminder',
  schedule: { kind: 'at', at: reminder.schedule.at },
  sessionTarget: 'main',
  wakeMode: 'now',
  payload: { kind: 'systemEvent', text: 'Reminder text' },
  deleteAfterRun: true,
};
const storedMorningBrief = {
  id: 'morning-brief',
  name: 'Morning brief',
  schedule: { kind: 'cron', expr: '0 7 * * *', tz: 'America/Los_Angeles' },
  sessionTarget: 'isolated',
  wakeMode: 'next-heartbeat',
  payload: { kind: 'agentTurn', message: 'Summarize overnight updates.' },
  delivery: { mode: 'announce', channel: 'slack', to: 'channel:C1234567890', bestEffort: true },
};

describe("OpenClaw's cron docs examples", () => {
  it('load as schedules.jobs in the config, ids made from their names', async () => {
    const { config } = await loadConfigValue({ channels, schedules: { jobs: [reminder, morningBrief] } }, path.join(tempDir(), 'herald.json'), { env: {} });
    expect(config.schedules.jobs[0]).toMatchObject(storedReminder);
    expect(config.schedules.jobs[1]).toMatchObject(storedMorningBrief);
  });

  it('are made through POST /admin/schedules, and the update example applies through PATCH', async () => {
    const app = await testApp({ channels });

    const brief = await call(app, 'POST', '/schedules', morningBrief);
    expect(brief.status).toBe(201);
    expect(brief.json).toMatchObject({ id: 'morning-brief', origin: 'api', enabled: true, job: storedMorningBrief });

    // the reminder's `at` (2026-02-01) has passed, and the admin API refuses a one-shot in the past
    const asPrinted = await call(app, 'POST', '/schedules', reminder);
    expect(asPrinted.status).toBe(400);
    expect(asPrinted.json.error).toMatch(/^schedule\.at/);
    const later = new Date(Date.now() + 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const made = await call(app, 'POST', '/schedules', { ...reminder, schedule: { ...reminder.schedule, at: later } });
    expect(made.status).toBe(201);
    expect(made.json).toMatchObject({ id: 'reminder', origin: 'api', job: { ...storedReminder, schedule: { kind: 'at', at: later } } });

    // cron.update's `{jobId, patch}`: the patch is the PATCH body of the job's URL
    const job = await call(app, 'POST', '/schedules', { ...morningBrief, id: update.jobId, name: 'Job 123' });
    expect(job.status).toBe(201);
    const patched = await call(app, 'PATCH', `/schedules/${update.jobId}`, update.patch);
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({ id: 'job-123', enabled: false, nextDueAt: null, job: { schedule: { kind: 'every', every: '1h' } } });
    expect(patched.json.job.schedule).not.toHaveProperty('everyMs');

    // what was made is what a restart reads back
    const restarted = await app.restart();
    const listed = (await call(restarted, 'GET', '/schedules')).json.data;
    expect(listed.map((s: { id: string; enabled: boolean }) => [s.id, s.enabled])).toEqual([
      ['job-123', false],
      ['morning-brief', true],
      ['reminder', true],
    ]);
    expect(listed.find((s: { id: string }) => s.id === 'job-123').job.schedule).toEqual({ kind: 'every', every: '1h' });
  });

  it('refuses a job with neither id nor name, and every with everyMs, naming the field', async () => {
    const app = await testApp();
    const { name: _name, ...nameless } = reminder;
    const noId = await call(app, 'POST', '/schedules', { ...nameless, schedule: { kind: 'every', everyMs: 60_000 } });
    expect(noId.status).toBe(400);
    expect(noId.json.error).toMatch(/^id is required/);
    const both = await call(app, 'POST', '/schedules', { ...reminder, schedule: { kind: 'every', every: '1m', everyMs: 60_000 } });
    expect(both.status).toBe(400);
    expect(both.json.error).toMatch(/^schedule\.everyMs is an alias of every/);
  });

  it('bestEffort false: a failed delivery fails the delivery, never the run (as bestEffort true does)', async () => {
    // the webhook channel's endpoint refuses every post, so the one attempt the job allows fails
    const inbox = await startFakeServer(() => ({ status: 500, body: { error: 'down' } }));
    try {
      const app = await testApp({ channels: { webhook: { url: `${inbox.url}/inbox` } } });
      const strict = { ...morningBrief, schedule: { kind: 'every', everyMs: 3_600_000 }, delivery: { mode: 'webhook', to: 'ops', bestEffort: false, retry: { attempts: 1 } } };
      expect((await call(app, 'POST', '/schedules', strict)).status).toBe(201);
      const fire = await call(app, 'POST', '/schedules/morning-brief/run');
      const runId = fire.json.run.id;
      const run = await eventually(async () => {
        const { json } = await call(app, 'GET', `/runs/${runId}`);
        return json.delivery?.status === 'failed' ? json : undefined;
      });
      expect(inbox.requests.length).toBe(1);
      expect(run.status).toBe('succeeded');
    } finally {
      await inbox.close();
    }
  });
});
