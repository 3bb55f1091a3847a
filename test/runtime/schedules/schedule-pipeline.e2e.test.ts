import { afterEach, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeResponse, type FakeServer, type RecordedRequest } from '../../helpers/fake-server.js';
import { GATEWAY_TOKEN, eventually } from '../../helpers/start-herald.js';
import { testApp, type TestApp } from '../../http/app-fixture.js';
import { channelCases } from '../../plugins/channel-cases.js';

/** A fired job goes through what a hook run goes through: admission, budgets, usage, delivery policy and fallbacks. */
const caseOf = (id: string) => channelCases.find((c) => c.plugin.id === id)!;
const fast = { delivery: { baseDelayMs: 10, maxDelayMs: 50, maxAttempts: 3 } };
/** a job that never fires on its own here (once a year): each fire in these tests is a run now */
const yearly = { kind: 'cron', expr: '0 0 1 1 *', tz: 'UTC' };
const job = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  schedule: yearly,
  sessionTarget: 'isolated',
  payload: { kind: 'agentTurn', message: `job ${id}` },
  delivery: { mode: 'none' },
  ...extra,
});

let herald: TestApp | undefined;
let fake: FakeServer | undefined;
afterEach(async () => {
  await herald?.stop();
  herald = undefined;
  await fake?.close();
  fake = undefined;
});

async function admin(path: string, init: RequestInit = {}): Promise<{ status: number; body: any }> {
  const res = await herald!.request(`/admin${path}`, { ...init, headers: { authorization: `Bearer ${GATEWAY_TOKEN}`, 'content-type': 'application/json' } });
  return { status: res.status, body: await res.json() };
}

const runNow = async (id: string) => (await admin(`/schedules/${id}/run`, { method: 'POST' })).body;
const finished = (runId: string) => eventually(async () => {
  const { body } = await admin(`/runs/${runId}`);
  return !['queued', 'running'].includes(body.status) && body;
});

describe('a fired job in the pipeline of hook runs', () => {
  it("the job's rate admits one run per window: a fire beyond it with overflow reject is skipped, and counted", async () => {
    herald = await testApp({ schedules: { jobs: [job('limited', { concurrency: 1, rate: { runs: 1, per: '1h', overflow: 'reject' } })] } });
    const first = await runNow('limited');
    expect(first).toMatchObject({ source: 'schedule limited', outcome: 'dispatched', run: { id: expect.any(String) } });
    const second = await runNow('limited');
    expect(second).toMatchObject({ outcome: 'skipped', detail: "rate limited (the job's rate, overflow: reject)", run: null });
    expect((await finished(first.run.id)).status).toBe('succeeded');
    const metrics = await (await herald.request('/metrics', { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).text();
    expect(metrics).toContain('herald_runs_rate_limited_total{mapping="schedule:limited"} 1');
    expect(metrics).toContain('herald_schedule_fires_total{schedule="limited",outcome="skipped"} 1');
    expect(metrics).toContain('herald_schedule_fires_total{schedule="limited",outcome="dispatched"} 1');
    // the fires list says the same as the answers
    const listed = (await admin('/schedule-runs?schedule=limited')).body.data;
    expect(listed.map((f: any) => f.outcome)).toEqual(['skipped', 'dispatched']);
  });

  it("a job's run is refused by its agent's spent budget, as a hook run is, and its usage is the job's (source schedule, mapping schedule:<id>)", async () => {
    herald = await testApp({ agents: { list: [{ id: 'main', budget: { tokensPerDay: 1 } }] }, schedules: { jobs: [job('thrifty')] } });
    const first = await finished((await runNow('thrifty')).run.id);
    expect(first.status).toBe('succeeded');
    const usage = (await admin('/usage?by=mapping')).body.data;
    expect(usage.find((row: any) => row.group === 'schedule:thrifty')).toMatchObject({ requests: 1, totalTokens: expect.any(Number) });
    const metrics = await (await herald.request('/metrics', { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).text();
    expect(metrics).toMatch(/herald_tokens_total\{agent="main",model="[^"]+",source="schedule",estimated="true",kind="prompt"\} \d+/);
    const second = await finished((await runNow('thrifty')).run.id);
    expect(second).toMatchObject({ status: 'failed', error: expect.stringContaining('Budget exceeded: agent "main"') });
  });

  it("a job's reply refused for good goes to its delivery.fallback, as a mapping's does; its delivery.retry sets the attempts", async () => {
    fake = await startFakeServer((r: RecordedRequest): FakeResponse => {
      if (caseOf('telegram').isSend(r)) return { status: 403, body: { ok: false, error_code: 403, description: 'Forbidden: bot was blocked by the user' } };
      if (caseOf('slack').isSend(r)) return { status: 503, body: { ok: false, error: 'service_unavailable' } };
      return caseOf('webhook').ok;
    });
    herald = await testApp({
      ...fast,
      channels: { telegram: caseOf('telegram').config(fake.url), slack: caseOf('slack').config(fake.url), webhook: caseOf('webhook').config(fake.url) },
      schedules: {
        jobs: [
          job('report', { delivery: { mode: 'announce', channel: 'telegram', to: '555', fallback: [{ channel: 'webhook' }] } }),
          job('patient', { delivery: { mode: 'announce', channel: 'slack', to: 'C0PS', retry: { attempts: 2, initialMs: 5 } } }),
        ],
      },
    });
    const report = await runNow('report');
    const [first, second] = await eventually(async () => {
      const { body } = await admin(`/deliveries?run=${report.run.id}`);
      return body.data.length === 2 && body.data.every((d: any) => ['delivered', 'failed'].includes(d.status)) && body.data.reverse();
    });
    expect(first).toMatchObject({ channel: 'telegram', to: '555', status: 'failed', attempts: 1 });
    expect(second).toMatchObject({ channel: 'webhook', status: 'delivered', fallbackOf: first.id });
    const patient = await runNow('patient');
    const [retried] = await eventually(async () => {
      const { body } = await admin(`/deliveries?run=${patient.run.id}`);
      return body.data.length === 1 && body.data[0].status === 'failed' && body.data;
    });
    expect(retried).toMatchObject({ channel: 'slack', attempts: 2 });
  });

  it('refuses a fallback to a channel that is not configured, naming the field', async () => {
    herald = await testApp({ schedules: { jobs: [] } });
    const refused = await admin('/schedules', { method: 'POST', body: JSON.stringify(job('lost', { delivery: { mode: 'none', fallback: [{ channel: 'telegram', to: '1' }] } })) });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('delivery.fallback[0].channel: telegram is not configured (add channels.telegram)');
    const main = await admin('/schedules', { method: 'POST', body: JSON.stringify({ id: 'ev', schedule: yearly, sessionTarget: 'main', payload: { kind: 'systemEvent', text: 'x' }, concurrency: 1 }) });
    expect(main.status).toBe(400);
    expect(main.body.error).toBe('concurrency only an isolated job makes runs to govern');
  });
});
