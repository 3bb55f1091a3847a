import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { callInRounds, quoteResults, startToolCallingModel, type ModelScript, type ToolCallingModel } from '../helpers/fake-tool-calling-model.js';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { API_KEY, eventually, GATEWAY_TOKEN, hookHeaders } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';

/**
 * herald__schedule_followup: an agent sets a one-shot follow-up for itself. The model (a fake
 * speaking OpenAI's tool_calls) calls the tool in a hook run; the write waits for a person, as
 * every write over outside content does; approved, the job is stored, fires on the real clock, and
 * its run is delivered where the run that set it was. The operator's limits refuse with a tool
 * error naming them.
 */
let model: ToolCallingModel | undefined;
let channel: FakeServer | undefined;
afterEach(async () => {
  await model?.close();
  await channel?.close();
  model = channel = undefined;
});

const admin = { authorization: `Bearer ${GATEWAY_TOKEN}`, 'content-type': 'application/json' };

const config = (modelUrl: string, channelUrl: string, followups: Record<string, unknown> = {}) => ({
  models: { providers: { fake: { api: 'openai', baseUrl: modelUrl, apiKey: 'sk-fake' } } },
  agents: { defaults: { model: 'fake/tool-model' }, list: [{ id: 'ops', tools: { servers: ['herald'] } }] },
  channels: { webhook: { url: `${channelUrl}/inbox` } },
  schedules: { minEvery: '1s', followups },
});

const lastUser = (body: any): string => body.messages.findLast((m: any) => m.role === 'user').content;

async function hookRun(h: TestApp, message: string): Promise<string> {
  const res = await h.request('/hooks/agent', { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ message, deliver: true, channel: 'webhook', to: 'ops-room' }) });
  expect(res.status).toBe(202);
  return ((await res.json()) as { runId: string }).runId;
}

const runOf = async (h: TestApp, id: string) => (await (await h.request(`/admin/runs/${id}`, { headers: admin })).json()) as Record<string, any>;
const settled = (h: TestApp, id: string, statuses: string[]) =>
  eventually(async () => {
    const run = await runOf(h, id);
    return statuses.includes(run.status) ? run : undefined;
  });

/** a person approves each call the run waits for, through the admin API */
async function approveAll(h: TestApp, runId: string): Promise<void> {
  for (const call of await h.gateway.store.toolCalls.ofOwner('run', runId)) {
    if (call.status !== 'waiting_approval') continue;
    expect((await h.request(`/admin/approvals/${call.id}/approve`, { method: 'POST', headers: admin, body: '{}' })).status).toBe(200);
  }
}

describe('herald__schedule_followup', () => {
  it('sets a one-shot follow-up from a hook run: approved, stored, fired, delivered like the run that set it, then gone', async () => {
    channel = await startFakeServer(() => ({ body: { ok: true } }));
    const script: ModelScript = (body, n) => {
      if (lastUser(body).includes('look at the deploy of api again')) return { text: 'The deploy of api is healthy now.' };
      return callInRounds([[{ name: 'herald__schedule_followup', arguments: { in: '1s', message: 'look at the deploy of api again' } }]])(body, n);
    };
    model = await startToolCallingModel(script);
    const h = await testApp(config(model.url, channel.url));
    const runId = await hookRun(h, 'The deploy of api is flapping');
    // not read-only, in a run over outside content: it waits for a person
    expect((await settled(h, runId, ['waiting_approval', 'succeeded', 'failed'])).status).toBe('waiting_approval');
    expect(((await (await h.request('/admin/schedules', { headers: admin })).json()) as { data: unknown[] }).data).toEqual([]);
    await approveAll(h, runId);
    const run = await settled(h, runId, ['succeeded', 'failed']);
    expect(run.reply).toMatch(/^Done: follow-up followup-[0-9a-f]{32}-1 set for \d{4}-\d\d-\d\dT/);
    const id = /followup-[0-9a-f]+-1/.exec(run.reply)![0];

    // the follow-up's run: the same agent and session, delivered to the same channel target
    const delivered = await eventually(() => channel!.requests.filter((r) => r.path === '/inbox').find((r) => (r.json as any).text === 'The deploy of api is healthy now.'));
    const body = delivered.json as { runId: string; to: string; sessionKey: string; agent: string };
    expect(body).toMatchObject({ to: 'ops-room', agent: 'ops', sessionKey: run.sessionKey });
    const followup = await runOf(h, body.runId);
    expect(followup).toMatchObject({ status: 'succeeded', agentId: 'ops', sessionKey: run.sessionKey, name: `Follow-up of ${run.name}` });
    // set by a run over outside content, its message is read as outside content too
    expect(lastUser(model.requests.at(-1))).not.toBe('look at the deploy of api again');

    // a one-shot deleted once it fired; its fire stays, with its run
    await eventually(async () => ((await h.request(`/admin/schedules/${id}`, { headers: admin })).status === 404 ? true : undefined));
    expect(await h.gateway.store.schedules.fires(id, 5)).toMatchObject([{ outcome: 'dispatched', runId: body.runId }]);
  });

  it('refuses past the operator\'s limits with a tool error naming them: per run, too far, too near, outside a run', async () => {
    channel = await startFakeServer(() => ({ body: { ok: true } }));
    model = await startToolCallingModel(
      callInRounds([
        [
          { name: 'herald__schedule_followup', arguments: { in: '30m', message: 'first' } },
          { name: 'herald__schedule_followup', arguments: { in: '40m', message: 'second' } },
          { name: 'herald__schedule_followup', arguments: { in: '2h', message: 'too far' } },
          { name: 'herald__schedule_followup', arguments: { in: '0.5s', message: 'too near' } },
          { name: 'herald__schedule_followup', arguments: { message: 'when?' } },
        ],
      ]),
    );
    const h = await testApp(config(model.url, channel.url, { maxPerRun: 1, maxAhead: '1h' }));
    const runId = await hookRun(h, 'Watch the queue');
    await settled(h, runId, ['waiting_approval']);
    await approveAll(h, runId);
    const run = await settled(h, runId, ['succeeded', 'failed']);
    expect(run.status).toBe('succeeded');
    const results = model.requests.at(-1).messages.filter((m: any) => m.role === 'tool').map((m: any) => m.content);
    expect(results[0]).toMatch(/^follow-up followup-[0-9a-f]+-1 set for /);
    expect(results.slice(1)).toEqual([
      'Error: this run has set 1 follow-up already, the most schedules.followups.maxPerRun allows',
      'Error: a follow-up is set at most 1h ahead (schedules.followups.maxAhead)',
      'Error: a follow-up is set at least 1s ahead (schedules.minEvery)',
      'Error: give one of `in` (a duration from now, such as "2h") or `at` (an ISO time with its offset)',
    ]);
    const stored = ((await (await h.request('/admin/schedules', { headers: admin })).json()) as { data: any[] }).data;
    expect(stored).toMatchObject([{ origin: 'api', job: { payload: { message: 'first', agentId: 'ops' }, deleteAfterRun: true, delivery: { mode: 'announce', channel: 'webhook', to: 'ops-room' }, followUp: { runId, trusted: false } } }]);

    // a chat has no delivery of its own to repeat: refused
    model.script(callInRounds([[{ name: 'herald__schedule_followup', arguments: { in: '5m', message: 'again' } }]]));
    const client = new OpenAI({ baseURL: `${h.origin}/v1`, apiKey: API_KEY, fetch: h.fetch });
    const answer = (await client.chat.completions.create({ model: 'ops', messages: [{ role: 'user', content: 'later?' }] })).choices[0]!.message.content;
    expect(answer).toMatch(/^Done: Error: a follow-up is set from a run/);
    model.script(quoteResults);
  });
});
