import { afterEach, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '../../helpers/fake-server.js';
import { GATEWAY_TOKEN, eventually, hookHeaders } from '../../helpers/start-herald.js';
import { completion } from '../../models/fake-openai.js';
import { ALERTS_CHAT, alertTexts, config as platformConfig, platforms } from '../../runtime/alert-platforms.js';
import { testApp, type TestApp } from '../app-fixture.js';
import { GITHUB_TOKEN, pausedRun, toolCall } from './paused-runs.js';

/**
 * Approvals by a person through the admin API, on the real store: runs paused for approval are
 * seeded through the store port as a turn leaves them (checkpoint, then pauseForApproval), and
 * the gateway's run queue is stopped, so a run queued again by a decision stays queued to be seen.
 */
const HOUR = 3_600_000;
const admin = { authorization: `Bearer ${GATEWAY_TOKEN}` };
const adminJson = { ...admin, 'content-type': 'application/json' };

const fakes: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((f) => f.close()));
});

async function api<T = any>(app: TestApp, path: string, init: RequestInit = {}, status = 200): Promise<T> {
  const res = await app.request(`/admin${path}`, { ...init, headers: { ...admin, ...init.headers } });
  const text = await res.text();
  expect(res.status, `${init.method ?? 'GET'} ${path}: ${text}`).toBe(status);
  return JSON.parse(text) as T;
}

const decide = (app: TestApp, id: string, decision: 'approve' | 'deny', body?: unknown, status = 200) =>
  api(app, `/approvals/${id}/${decision}`, { method: 'POST', ...(body !== undefined && { headers: adminJson, body: JSON.stringify(body) }) }, status);

/** a gateway whose run queue claims nothing, so a run a decision queued again stays `queued` */
async function quietApp(overrides: Record<string, unknown> = {}): Promise<TestApp> {
  const app = await testApp(overrides);
  await app.gateway.runs.stop(0);
  return app;
}

describe('approvals through the admin API', () => {
  it('lists a pending call with its run and masked arguments; approving records the caller and queues the run again', async () => {
    const app = await quietApp();
    const { run, calls } = await pausedRun(app.gateway, (runId) => [
      toolCall(runId),
      toolCall(runId, { tool: 'get_issue', readOnly: true, status: 'succeeded', approvalRequired: false, approvalExpiresAt: null, result: '{"number":7}', durationMs: 12, arguments: '{"number":7}' }),
    ]);
    const [waiting] = calls;

    const listed = await app.request('/admin/approvals', { headers: admin });
    const raw = await listed.text();
    expect(raw).not.toContain(GITHUB_TOKEN);
    const { data } = JSON.parse(raw);
    expect(data).toHaveLength(1);
    expect(data[0]).toMatchObject({
      id: waiting!.id,
      server: 'github',
      tool: 'create_issue',
      status: 'waiting_approval',
      agentId: 'main',
      mappingId: 'github',
      ownerKind: 'run',
      ownerId: run.id,
      arguments: { repo: 'acme/api', title: 'Crash on start', token: '••••' },
      approvalExpiresAt: new Date(waiting!.approvalExpiresAt!).toISOString(),
      approval: null,
      run: { id: run.id, name: 'GitHub', status: 'waiting_approval' },
    });
    expect((await api(app, '/runs?status=waiting_approval')).data.map((r: any) => r.id)).toEqual([run.id]);

    // the console's session cookie, or here the Bearer, is who decided; no body is needed to approve
    const approved = await api(app, `/approvals/${waiting!.id}/approve`, { method: 'POST' });
    expect(approved).toMatchObject({ id: waiting!.id, approval: { decision: 'approved', by: 'gateway-token', reason: null }, run: { status: 'queued' } });
    expect((await app.gateway.store.runs.get(run.id))!.status).toBe('queued');
    expect((await app.gateway.store.toolCalls.get(waiting!.id))!.approval).toMatchObject({ decision: 'approved', by: 'gateway-token' });
    expect((await api(app, '/approvals')).data).toEqual([]);

    // a second decision, whoever makes it, is refused and says who decided first
    const again = await decide(app, waiting!.id, 'deny', { reason: 'too late' }, 409);
    expect(again.error).toMatch(/^tool call tc_\S+ was already approved by gateway-token at \d{4}-/);

    const detail = await app.request(`/admin/runs/${run.id}`, { headers: admin });
    const detailText = await detail.text();
    expect(detailText).not.toContain(GITHUB_TOKEN);
    const { toolCalls } = JSON.parse(detailText);
    expect(toolCalls.map((c: any) => [c.tool, c.status, c.approval?.by ?? null])).toEqual([
      ['create_issue', 'waiting_approval', 'gateway-token'],
      ['get_issue', 'succeeded', null],
    ]);
    expect(toolCalls[1]).toMatchObject({ readOnly: true, result: '{"number":7}', durationMs: 12, arguments: { number: 7 }, approvalRequired: false });
  });

  it('records a denial with its reason; a denial needs one; an unknown call is 404', async () => {
    const app = await quietApp();
    const { run, calls } = await pausedRun(app.gateway, (runId) => [toolCall(runId)]);
    const id = calls[0]!.id;
    expect((await decide(app, id, 'deny', undefined, 400)).error).toMatch(/body|reason/);
    expect((await decide(app, id, 'deny', {}, 400)).error).toMatch(/^reason /);
    expect((await decide(app, id, 'deny', { reason: '   ' }, 400)).error).toMatch(/^reason /);
    expect((await decide(app, id, 'approve', { reason: 'ok', by: 'someone else' }, 400)).error).toBe('by is not a parameter of this route');

    const denied = await decide(app, id, 'deny', { reason: 'Do not close issues from a webhook' });
    expect(denied).toMatchObject({ status: 'denied', approval: { decision: 'denied', by: 'gateway-token', reason: 'Do not close issues from a webhook' }, run: { status: 'queued' } });
    expect((await app.gateway.store.toolCalls.get(id))!.approval?.reason).toBe('Do not close issues from a webhook');
    expect(await api(app, `/approvals/${id}`)).toMatchObject({ id, status: 'denied', run: { id: run.id } });

    expect((await decide(app, 'tc_nope', 'approve', undefined, 404)).error).toBe('tool call not found');
    expect((await api(app, '/approvals/tc_nope', {}, 404)).error).toBe('tool call not found');
  });

  it('of two decisions racing on one call, one wins and the other is a 409', async () => {
    const app = await quietApp();
    const { calls } = await pausedRun(app.gateway, (runId) => [toolCall(runId)]);
    const id = calls[0]!.id;
    const answers = await Promise.all([
      app.request(`/admin/approvals/${id}/approve`, { method: 'POST', headers: admin }),
      app.request(`/admin/approvals/${id}/deny`, { method: 'POST', headers: adminJson, body: JSON.stringify({ reason: 'no' }) }),
    ]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    const winner = answers.find((r) => r.status === 200)!;
    expect((await app.gateway.store.toolCalls.get(id))!.approval!.decision).toBe(((await winner.json()) as any).approval.decision);
  });

  it('queues a run again only once its last waiting call is decided', async () => {
    const app = await quietApp();
    const { run, calls } = await pausedRun(app.gateway, (runId) => [toolCall(runId), toolCall(runId, { tool: 'add_label' })]);
    expect((await api(app, '/approvals')).data.map((a: any) => a.tool)).toEqual(['create_issue', 'add_label']);
    expect(await decide(app, calls[0]!.id, 'approve', { reason: 'looks right' })).toMatchObject({ approval: { reason: 'looks right' }, run: { status: 'waiting_approval' } });
    expect((await decide(app, calls[1]!.id, 'deny', { reason: 'no labels today' })).run.status).toBe('queued');
    expect((await app.gateway.store.runs.get(run.id))!.status).toBe('queued');
  });

  it('leaves out the calls of a run cancelled while it waited, and refuses to decide them', async () => {
    const app = await quietApp();
    const { run, calls } = await pausedRun(app.gateway, (runId) => [toolCall(runId)]);
    await api(app, `/runs/${run.id}/cancel`, { method: 'POST' });
    expect((await api(app, '/approvals')).data).toEqual([]);
    expect((await decide(app, calls[0]!.id, 'approve', undefined, 409)).error).toBe(`tool call ${calls[0]!.id} belongs to run ${run.id}, which is cancelled: nothing waits for the decision`);
  });

  it('decides as the console session that asked: console:<8 hex>, with its CSRF token', async () => {
    const app = await quietApp();
    const { calls } = await pausedRun(app.gateway, (runId) => [toolCall(runId)]);
    const signIn = await app.request('/console/session', { method: 'POST', headers: { 'content-type': 'application/json', origin: 'http://localhost' }, body: JSON.stringify({ token: GATEWAY_TOKEN }) });
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    const { csrf } = (await signIn.json()) as { csrf: string };
    const res = await app.request(`/admin/approvals/${calls[0]!.id}/approve`, { method: 'POST', headers: { cookie, 'x-csrf-token': csrf } });
    expect(res.status).toBe(200);
    expect((await app.gateway.store.toolCalls.get(calls[0]!.id))!.approval!.by).toMatch(/^console:[0-9a-f]{8}$/);
  });

  it('the sweep refuses an expired approval (by timeout) and queues its run; deciding it afterwards is 409', async () => {
    const app = await quietApp();
    const now = Date.now();
    const { run, calls } = await pausedRun(app.gateway, (runId) => [toolCall(runId, { approvalExpiresAt: now + 1000 })]);
    const other = await pausedRun(app.gateway, (runId) => [toolCall(runId, { approvalExpiresAt: now + 2 * HOUR })]);
    expect(await app.gateway.approvals.sweep(now + HOUR)).toMatchObject({ expired: 1 });
    expect(await app.gateway.store.toolCalls.get(calls[0]!.id)).toMatchObject({ status: 'denied', approval: { decision: 'expired', by: 'timeout', at: now + HOUR } });
    expect((await app.gateway.store.runs.get(run.id))!.status).toBe('queued');
    expect((await app.gateway.store.runs.get(other.run.id))!.status).toBe('waiting_approval');
    expect((await decide(app, calls[0]!.id, 'approve', undefined, 409)).error).toContain('was already expired by timeout');
    expect((await api(app, '/approvals')).data.map((a: any) => a.id)).toEqual([other.calls[0]!.id]);
  });

  it("announces a paused run's calls to tools.approvals.targets through the outbox: a fake Telegram and the signed webhook receive them, once", async () => {
    const p = await platforms(async (handler) => {
      const server = await startFakeServer(handler);
      fakes.push(server);
      return server;
    });
    const app = await quietApp(platformConfig(p, { tools: { approvals: { targets: [{ channel: 'telegram', to: ALERTS_CHAT }, { channel: 'webhook' }] } } }));
    const { run, calls } = await pausedRun(app.gateway, (runId) => [toolCall(runId)]);
    expect(await app.gateway.approvals.announce(run, calls)).toBe(2);
    const text = (await eventually(() => alertTexts(p).find((t) => t.startsWith('herald approval needed'))))!;
    expect(text).toContain('herald approval needed: create_issue on github');
    expect(text).toContain(`Agent main · mapping github · run ${run.id} (GitHub)`);
    expect(text).toContain('Arguments: {"repo":"acme/api","title":"Crash on start","token":"••••"}');
    expect(text).toContain(`Approve: POST /admin/approvals/${calls[0]!.id}/approve`);
    expect(text).toContain(`/console#/approvals/${calls[0]!.id}`);
    expect(text).not.toContain(GITHUB_TOKEN);
    // the signed generic webhook carries the same notice (Standard Webhooks headers)
    const sent = await eventually(() => p.webhook.requests.find((r) => JSON.stringify(r.json).includes('herald approval needed')));
    expect(sent!.headers['webhook-signature']).toMatch(/^v1,/);

    // announced again (a second replica, a resumed turn) or caught up by the sweep: no second notice
    await app.gateway.approvals.announce(run, calls);
    await app.gateway.approvals.sweep();
    // a run paused by a process that died before announcing: the sweep announces it
    const orphan = await pausedRun(app.gateway, (runId) => [toolCall(runId, { tool: 'close_issue' })]);
    await app.gateway.approvals.sweep();
    await eventually(() => alertTexts(p).some((t) => t.startsWith('herald approval needed: close_issue')));
    const notices = await eventually(async () => {
      const rows = (await api(app, '/deliveries?limit=100')).data.filter((d: any) => d.kind === 'alert');
      return rows.length === 4 && rows.every((d: any) => d.status === 'delivered') && rows;
    });
    expect(notices).toHaveLength(4);
    expect(alertTexts(p).filter((t) => t.startsWith('herald approval needed'))).toHaveLength(2);
    expect(orphan.run.status).toBe('waiting_approval');
  });

  it('announces a hook run that really paused (a write tool asked for over outside content), and resumes it once approved', async () => {
    const p = await platforms(async (handler) => {
      const server = await startFakeServer(handler);
      fakes.push(server);
      return server;
    });
    // the model asks for herald__add_event until it has the tool's answer, then replies, as OpenAI's
    // chat completion object shows tool calls (https://platform.openai.com/docs/api-reference/chat/object:
    // message.tool_calls[{id, type: "function", function: {name, arguments}}], finish_reason "tool_calls")
    const model = await startFakeServer((r) => {
      const answered = (r.json?.messages ?? []).some((m: { role: string }) => m.role === 'tool');
      if (answered) return { body: completion('Noted the deploy.') };
      const call = { id: 'call_1', type: 'function', function: { name: 'herald__add_event', arguments: JSON.stringify({ text: 'deploy 42 finished' }) } };
      return { body: { ...completion(''), choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [call] }, finish_reason: 'tool_calls' }] } };
    });
    fakes.push(model);
    const app = await testApp(
      platformConfig(p, {
        models: { providers: { fake: { api: 'openai', baseUrl: `${model.url}/v1` } } },
        agents: { defaults: { model: 'fake/test-model' }, list: [{ id: 'main', tools: { servers: ['herald'] } }] },
        tools: { approvals: { targets: [{ channel: 'telegram', to: ALERTS_CHAT }] } },
      }),
    );
    const res = await app.request('/hooks/github', { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ note: 'deploy 42 finished' }) });
    const { runId } = (await res.json()) as { runId: string };
    const text = (await eventually(() => alertTexts(p).find((t) => t.startsWith('herald approval needed'))))!;
    expect(text).toContain('herald approval needed: add_event on herald');
    expect(text).toContain(`Agent main · mapping github · run ${runId}`);
    expect(text).toContain('Arguments: {"text":"deploy 42 finished"}');
    const [pending] = (await api(app, '/approvals')).data;
    expect(pending).toMatchObject({ tool: 'add_event', server: 'herald', run: { id: runId, status: 'waiting_approval' } });

    // a person takes their time: the run's times must not count it as work, nor restart the run's clock
    await new Promise((resolve) => setTimeout(resolve, 300));
    await decide(app, pending.id, 'approve', { reason: 'fine' });
    const run = await eventually(async () => {
      const r = await api(app, `/runs/${runId}`);
      return r.status === 'succeeded' && r;
    });
    expect(run.reply).toBe('Noted the deploy.');
    expect(run.toolCalls).toMatchObject([{ tool: 'add_event', status: 'succeeded', approval: { decision: 'approved', by: 'gateway-token', reason: 'fine' } }]);
    // started: the first claim, before the call was asked for (not the resume after the decision)
    const at = (iso: string) => Date.parse(iso);
    const [call] = run.toolCalls;
    expect(at(run.startedAt)).toBeLessThanOrEqual(at(call.createdAt));
    const waited = at(call.approval.at) - at(call.createdAt);
    expect(waited).toBeGreaterThanOrEqual(300);
    expect(run.times).toEqual({ queuedMs: at(run.startedAt) - at(run.createdAt), approvalWaitMs: waited, workedMs: at(run.finishedAt) - at(run.startedAt) - waited });
    // the Runs list says the same
    const [listed] = (await api(app, '/runs')).data.filter((r: { id: string }) => r.id === runId);
    expect(listed.times).toEqual(run.times);
  });

  it('refuses to start with an approvals target on a channel that is not configured, naming the key', async () => {
    await expect(testApp({ tools: { approvals: { targets: [{ channel: 'telegram', to: '-100123' }] } } })).rejects.toThrow(
      'tools.approvals.targets[0].channel: telegram is not configured (add channels.telegram)',
    );
  });
});
