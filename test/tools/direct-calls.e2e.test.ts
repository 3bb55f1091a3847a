import fs from 'node:fs';
import { sign } from '@octokit/webhooks-methods';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { startToolCallingModel, type ToolCallingModel } from '../helpers/fake-tool-calling-model.js';
import { GATEWAY_TOKEN, eventually, hookHeaders } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';
import { startTicketServer, type TicketServer } from './ticket-server.js';
import { dryRun } from '../../src/runtime/operator/dry-run.js';

/**
 * A mapping's `action: "tool"`: GitHub's closed pull request (the preset's fixture, signed as
 * GitHub signs it) calls a real MCP server's tool directly, under the rules of an agent's calls,
 * as a durable run of kind `tool`, with no model asked (the fake model counts its requests).
 */
const SECRET = 'gh-secret-0123456789';
const admin = { authorization: `Bearer ${GATEWAY_TOKEN}` };
const fixture = (JSON.parse(fs.readFileSync('plugins/github/fixtures/github.json', 'utf8')) as { headers: Record<string, string>; payload: any }[])[3]!;

let tickets: TicketServer | undefined;
let model: ToolCallingModel | undefined;
let inbox: FakeServer | undefined;
afterEach(async () => {
  await tickets?.close();
  await model?.close();
  await inbox?.close();
  tickets = model = inbox = undefined;
});

/** the mapping of the worked example: a merged pull request closes its ticket, and says so on the release channel */
const mapping = (extra: Record<string, unknown> = {}) => ({
  id: 'merged-pr',
  match: { path: 'github', when: 'headers.x-github-event = "pull_request" and action = "closed"' },
  auth: { type: 'github', secret: SECRET },
  action: 'tool',
  tool: 'tickets__close_ticket',
  arguments: { id: 'PR-{{ number }}' },
  tools: { grant: ['tickets__close_ticket'] },
  then: { message: 'Released: {{ result.text }}', channel: 'webhook', to: 'releases' },
  ...extra,
});

async function start(mappings: unknown[]): Promise<TestApp> {
  tickets = await startTicketServer();
  model = await startToolCallingModel();
  inbox = await startFakeServer();
  const h = await testApp({
    models: { providers: { fake: { api: 'openai', baseUrl: model.url, apiKey: 'sk-fake' } } },
    agents: { defaults: { model: 'fake/tool-model' } },
    channels: { webhook: { url: `${inbox.url}/inbox` } },
    tools: { mcpServers: { tickets: { url: tickets.url } } },
    hooks: { mappings },
  });
  await eventually(() => h.gateway.mcp.tools().some((t) => t.name === 'tickets__close_ticket'));
  return h;
}

/** the closed pull request, as GitHub sends it: signed with the webhook's secret (X-Hub-Signature-256) */
async function sendSigned(h: TestApp, payload: unknown = fixture.payload): Promise<Response> {
  const body = JSON.stringify(payload);
  return h.request('/hooks/github', { method: 'POST', headers: { ...fixture.headers, 'x-hub-signature-256': await sign(SECRET, body) }, body });
}

const runOf = async (h: TestApp, id: string) => (await (await h.request(`/admin/runs/${id}`, { headers: admin })).json()) as Record<string, any>;
const settled = (h: TestApp, id: string, statuses = ['succeeded', 'failed', 'waiting_approval'], timeoutMs?: number) =>
  eventually(async () => {
    const run = await runOf(h, id);
    return statuses.includes(run.status) ? run : undefined;
  }, timeoutMs);

describe('a mapping that calls a tool directly', () => {
  it('signed and granted: the call runs once, on the record, its result delivered to the channel, no model asked', async () => {
    const h = await start([mapping()]);
    const res = await sendSigned(h);
    expect(res.status).toBe(202);
    const { runId } = (await res.json()) as { runId: string };
    const run = await settled(h, runId);
    expect(run).toMatchObject({ status: 'succeeded', reply: 'Released: closed PR-2' });
    expect(tickets!.invocations).toEqual([{ tool: 'close_ticket', id: 'PR-2' }]);
    const stored = await h.gateway.store.runs.get(runId);
    expect(stored!.action).toMatchObject({ kind: 'tool', call: { tool: 'tickets__close_ticket', arguments: { id: 'PR-2' } }, signed: true });
    const calls = await h.gateway.store.toolCalls.ofOwner('run', runId);
    expect(calls).toMatchObject([{ server: 'tickets', tool: 'close_ticket', status: 'succeeded', result: 'closed PR-2', approvalRequired: false, mappingId: 'merged-pr' }]);
    expect(JSON.parse(calls[0]!.arguments)).toEqual({ id: 'PR-2' });
    // then: the message made of the result reaches the channel through the outbox
    const delivered = await eventually(() => inbox!.requests.find((r) => r.json?.runId === runId));
    expect(delivered.json).toMatchObject({ to: 'releases', text: 'Released: closed PR-2' });
    // the receipt says it was a direct call, the metrics count it as the mapping's
    const receipt = await eventually(async () => ((await (await h.request('/admin/receipts?limit=5', { headers: admin })).json()) as { data: any[] }).data[0]);
    expect(receipt).toMatchObject({ outcome: 'tool', runId, mappingId: 'merged-pr' });
    const metrics = await (await h.request('/metrics', { headers: admin })).text();
    expect(metrics).toMatch(/herald_tool_calls_total\{server="tickets",tool="close_ticket",outcome="succeeded",source="mapping"\} 1/);
    expect(model!.requests).toHaveLength(0);
  });

  it('unsigned (the hook token, no signature): the write waits for a person; approved, it runs once', async () => {
    const h = await start([mapping()]);
    const res = await h.request('/hooks/github', { method: 'POST', headers: { ...hookHeaders(), 'x-github-event': 'pull_request' }, body: JSON.stringify(fixture.payload) });
    expect(res.status).toBe(202);
    const { runId } = (await res.json()) as { runId: string };
    expect((await settled(h, runId)).status).toBe('waiting_approval');
    expect(tickets!.invocations).toEqual([]);
    const [pending] = await h.gateway.store.toolCalls.pendingApprovals(10);
    expect(pending).toMatchObject({ ownerId: runId, server: 'tickets', tool: 'close_ticket', status: 'waiting_approval', approvalRequired: true });
    // the same record an agent's call waits on: the Approvals page decides it
    const decided = await h.request(`/admin/approvals/${pending!.id}/approve`, { method: 'POST', headers: { ...admin, 'content-type': 'application/json' }, body: '{}' });
    expect(decided.status).toBe(200);
    expect(await settled(h, runId, ['succeeded', 'failed'])).toMatchObject({ status: 'succeeded', reply: 'Released: closed PR-2' });
    expect(tickets!.invocations).toEqual([{ tool: 'close_ticket', id: 'PR-2' }]);
    expect(model!.requests).toHaveLength(0);
  });

  it('signed but not granted: waits for a person; denied, it never runs and the run fails saying who refused', async () => {
    const h = await start([mapping({ tools: undefined })]);
    const { runId } = (await (await sendSigned(h)).json()) as { runId: string };
    expect((await settled(h, runId)).status).toBe('waiting_approval');
    const [pending] = await h.gateway.store.toolCalls.pendingApprovals(10);
    await h.gateway.store.toolCalls.decide(pending!.id, { decision: 'denied', by: 'alice', at: Date.now(), reason: 'not this one' });
    const run = await settled(h, runId, ['succeeded', 'failed']);
    expect(run).toMatchObject({ status: 'failed', error: 'a person (alice) refused this call: not this one. It was not made.' });
    expect(tickets!.invocations).toEqual([]);
    expect(model!.requests).toHaveLength(0);
  });

  it('a read-only tool runs at once, signed or not', async () => {
    const h = await start([mapping({ tool: 'tickets__lookup_ticket', tools: undefined, auth: undefined, then: undefined })]);
    const res = await h.request('/hooks/github', { method: 'POST', headers: { ...hookHeaders(), 'x-github-event': 'pull_request' }, body: JSON.stringify(fixture.payload) });
    const { runId } = (await res.json()) as { runId: string };
    expect(await settled(h, runId)).toMatchObject({ status: 'succeeded', reply: 'ticket PR-2 is open' });
    expect(tickets!.invocations).toEqual([{ tool: 'lookup_ticket', id: 'PR-2' }]);
  });

  it('a template rendering the wrong shape fails the request naming the field; replayed after the mapping is fixed, it runs', async () => {
    // `{{ number }}` alone keeps its type: a number where the tool takes a string
    const h = await start([mapping({ arguments: { id: '{{ number }}' }, retainPayloads: true })]);
    const res = await sendSigned(h);
    expect(res.status).toBe(500);
    expect(tickets!.invocations).toEqual([]);
    const failed = await eventually(async () => ((await (await h.request('/admin/receipts?limit=5', { headers: admin })).json()) as { data: any[] }).data[0]);
    expect(failed).toMatchObject({ status: 500, errorCode: 'HERALD_MAPPING_FAILED', mappingId: 'merged-pr', failure: { stage: 'action', cause: 'tickets__close_ticket: arguments.id: must be string' } });

    // the mapping fixed (the config file rewritten, reloaded), the retained request replayed
    const config = JSON.parse(fs.readFileSync(h.configFile, 'utf8'));
    config.hooks.mappings[0].arguments = { id: 'PR-{{ number }}' };
    fs.writeFileSync(h.configFile, JSON.stringify(config));
    expect((await h.request('/admin/reload', { method: 'POST', headers: admin })).status).toBe(200);
    const replay = await h.request(`/admin/receipts/${failed.id}/replay`, { method: 'POST', headers: admin });
    expect(replay.status).toBe(200);
    const replayed = (await replay.json()) as { runId: string; status: number };
    // replayed as the mapping's signature admitted it on arrival: its grant holds
    expect(replayed).toMatchObject({ status: 202, outcome: 'tool', replayOf: failed.id });
    expect(await settled(h, replayed.runId)).toMatchObject({ status: 'succeeded' });
    expect(tickets!.invocations).toEqual([{ tool: 'close_ticket', id: 'PR-2' }]);
    expect(model!.requests).toHaveLength(0);
  });
});

describe("a direct call's retry policy", () => {
  it('a read-only call that failed is made again, and the run succeeds with the second answer', async () => {
    const h = await start([mapping({ tool: 'tickets__lookup_ticket', then: undefined, retry: { attempts: 3, initialMs: 0 } })]);
    tickets!.failNext();
    const { runId } = (await (await sendSigned(h)).json()) as { runId: string };
    expect(await settled(h, runId, ['succeeded', 'failed'])).toMatchObject({ status: 'succeeded', reply: 'ticket PR-2 is open' });
    expect(tickets!.invocations).toEqual([
      { tool: 'lookup_ticket', id: 'PR-2' },
      { tool: 'lookup_ticket', id: 'PR-2' },
    ]);
    // each attempt on the record
    expect(await h.gateway.store.toolCalls.ofOwner('run', runId)).toMatchObject([
      { tool: 'lookup_ticket', status: 'failed', error: 'the ticket system is out of order' },
      { tool: 'lookup_ticket', status: 'succeeded', result: 'ticket PR-2 is open' },
    ]);
    expect(model!.requests).toHaveLength(0);
  });

  it('a write that failed after reaching its server is not made again, whatever the policy: the run fails with its error', async () => {
    const h = await start([mapping({ then: undefined, retry: { attempts: 3, initialMs: 0 } })]);
    tickets!.failNext();
    const { runId } = (await (await sendSigned(h)).json()) as { runId: string };
    expect(await settled(h, runId, ['succeeded', 'failed'])).toMatchObject({ status: 'failed', error: 'the ticket system is out of order' });
    expect(tickets!.invocations).toEqual([{ tool: 'close_ticket', id: 'PR-2' }]);
    expect(await h.gateway.store.toolCalls.ofOwner('run', runId)).toMatchObject([{ tool: 'close_ticket', status: 'failed' }]);
    expect(model!.requests).toHaveLength(0);
  });
});

describe('a direct call whose server is down', () => {
  it('fails on the record without being made; re-run once the server is back, it runs once', async () => {
    const h = await start([mapping({ then: undefined })]);
    const port = Number(new URL(tickets!.url).port);
    await tickets!.close();
    const { runId } = (await (await sendSigned(h)).json()) as { runId: string };
    const failed = await settled(h, runId, ['succeeded', 'failed']);
    expect(failed.status).toBe('failed');
    const [call] = await h.gateway.store.toolCalls.ofOwner('run', runId);
    expect(call).toMatchObject({ server: 'tickets', tool: 'close_ticket', status: 'failed' });
    expect(call!.error).toMatch(/^the call to the server tickets failed: fetch failed \(connect ECONNREFUSED/);

    // the server back on its port: the operator re-runs the failed run (POST /admin/runs/{id}/rerun)
    tickets = await startTicketServer({ port });
    await eventually(() => h.gateway.mcp.health().find((s) => s.server === 'tickets')?.state === 'ready', 60_000);
    const rerun = await h.request(`/admin/runs/${runId}/rerun`, { method: 'POST', headers: admin });
    expect(rerun.status).toBe(202);
    const { runId: again } = (await rerun.json()) as { runId: string };
    expect(await settled(h, again, ['succeeded', 'failed'], 30_000)).toMatchObject({ status: 'succeeded', reply: 'closed PR-2' });
    expect(tickets.invocations).toEqual([{ tool: 'close_ticket', id: 'PR-2' }]);
    expect(model!.requests).toHaveLength(0);
  });
});

describe('a dry run of a direct call', () => {
  it('shows the resolved call (arguments rendered, the grant decision) and makes nothing', async () => {
    const h = await start([mapping()]);
    const outcome = await dryRun(h.gateway.engine, { path: 'github', payload: fixture.payload, headers: { 'x-github-event': 'pull_request' }, query: {}, url: 'http://herald.test/hooks/github' });
    expect(outcome).toMatchObject({
      type: 'action',
      mappingId: 'merged-pr',
      action: { kind: 'tool' },
      toolCall: { tool: 'tickets__close_ticket', arguments: { id: 'PR-2' }, decision: 'tickets__close_ticket: runs at once if it is read-only; a write waits for a person (granted to signed requests only, and this one is not signed)' },
    });
    expect(tickets!.invocations).toEqual([]);
    expect(model!.requests).toHaveLength(0);
  });
});

describe("a schedule's toolCall", () => {
  const job = (extra: Record<string, unknown> = {}) => ({
    id: 'nightly-close',
    name: 'Nightly close',
    schedule: { kind: 'every', every: '1s' },
    sessionTarget: 'isolated',
    payload: { kind: 'toolCall', tool: 'tickets__close_ticket', arguments: { id: 'T-7' }, then: { message: 'Nightly: {{ result.text }}' }, ...extra },
    delivery: { mode: 'webhook', to: 'ops' },
  });

  async function startWith(jobs: unknown[]): Promise<TestApp> {
    tickets = await startTicketServer();
    model = await startToolCallingModel();
    inbox = await startFakeServer();
    return testApp({
      models: { providers: { fake: { api: 'openai', baseUrl: model.url, apiKey: 'sk-fake' } } },
      agents: { defaults: { model: 'fake/tool-model' } },
      channels: { webhook: { url: `${inbox.url}/inbox` } },
      tools: { mcpServers: { tickets: { url: tickets.url } } },
      schedules: { minEvery: '1s', jobs },
    });
  }

  it('fires a run of kind tool: the write runs without a person (the operator\'s own config), its result delivered as the job says', async () => {
    const h = await startWith([job()]);
    const delivered = await eventually(() => inbox!.requests.find((r) => r.json?.sessionKey === 'cron:nightly-close'));
    expect(delivered.json).toMatchObject({ to: 'ops', text: 'Nightly: closed T-7' });
    const run = await h.gateway.store.runs.get(delivered.json.runId);
    expect(run).toMatchObject({ status: 'succeeded', action: { kind: 'tool', schedule: { id: 'nightly-close' }, call: { outside: false } } });
    expect(await h.gateway.store.toolCalls.ofOwner('run', run!.id)).toMatchObject([{ tool: 'close_ticket', status: 'succeeded', approvalRequired: false }]);
    expect(tickets!.invocations[0]).toEqual({ tool: 'close_ticket', id: 'T-7' });
    const metrics = await (await h.request('/metrics', { headers: admin })).text();
    expect(metrics).toMatch(/herald_tool_calls_total\{server="tickets",tool="close_ticket",outcome="succeeded",source="schedule"\} [1-9]/);
    expect(model!.requests).toHaveLength(0);
  });

  it('requireApproval holds its call for a person', async () => {
    const h = await startWith([job({ requireApproval: 'always' })]);
    const [pending] = await eventually(async () => {
      const waiting = await h.gateway.store.toolCalls.pendingApprovals(10);
      return waiting.length ? waiting : undefined;
    });
    expect(pending).toMatchObject({ server: 'tickets', tool: 'close_ticket', approvalRequired: true });
    expect(tickets!.invocations).toEqual([]);
    expect(model!.requests).toHaveLength(0);
  });

  it('a tool of a server that is not configured is refused at start, naming the field', async () => {
    await expect(startWith([job({ tool: 'slack__post_message' })])).rejects.toThrow(/schedules\.jobs\[0\]\.payload\.tool: "slack" is not a server of tools\.mcpServers/);
  });
});
