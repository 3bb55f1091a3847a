import { describe, expect, it } from 'vitest';
import { API_KEY, GATEWAY_TOKEN, HOOK_TOKEN, eventually, hookHeaders } from '../../helpers/start-herald.js';
import { testApp, type TestApp } from '../app-fixture.js';

const admin = { authorization: `Bearer ${GATEWAY_TOKEN}` };
const post = (body: unknown, headers: Record<string, string> = hookHeaders()) => ({ method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
const adminPost = (body?: unknown) => ({ method: 'POST', headers: { ...admin, 'content-type': 'application/json' }, ...(body !== undefined && { body: JSON.stringify(body) }) });

async function get<T = any>(app: TestApp, path: string): Promise<T> {
  const res = await app.request(`/admin${path}`, { headers: admin });
  expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200);
  return (await res.json()) as T;
}

const github = {
  id: 'github-issues',
  match: { path: 'github' },
  name: 'GitHub',
  messageTemplate: 'Issue {{ issue.title }} was {{ action }}',
  deliver: false,
  retainPayloads: true,
};

describe('receipts', () => {
  it('leaves one receipt per webhook request, whatever its outcome, never the body', async () => {
    const app = await testApp();
    const wake = await app.request('/hooks/wake', post({ text: 'Deploy finished' }, { ...hookHeaders(), 'x-request-id': 'req-wake-1' }));
    const agent = await app.request('/hooks/agent', post({ message: 'Summarise', deliver: false }));
    const { runId } = (await agent.json()) as { runId: string };
    await app.request('/hooks/wake', post({ text: 'x' }, hookHeaders('wrong-token-0123456789')));
    await app.request('/hooks/nothing', post({}));
    expect(wake.status).toBe(200);

    const page = await eventually(async () => {
      const p = await get(app, '/receipts');
      return p.data.length === 4 && p;
    });
    const [notFound, refused, started, woke] = page.data;
    expect(woke).toMatchObject({ requestId: 'req-wake-1', method: 'POST', path: 'wake', mappingId: 'wake', status: 200, outcome: 'wake', authMethod: 'bearer', errorCode: null, retainedUntil: null });
    expect(woke.eventId).toEqual(expect.any(Number));
    expect(woke.bodyBytes).toBe(JSON.stringify({ text: 'Deploy finished' }).length);
    expect(woke.latencyMs).toEqual(expect.any(Number));
    expect(started).toMatchObject({ path: 'agent', status: 202, outcome: 'agent', runId });
    expect(refused).toMatchObject({ status: 401, outcome: 'error', errorCode: 'HERALD_UNAUTHORIZED', mappingId: null });
    expect(notFound).toMatchObject({ status: 404, errorCode: 'HERALD_MAPPING_NOT_FOUND', path: 'nothing' });
    expect(JSON.stringify(page)).not.toContain('Deploy finished');
    expect(page.nextCursor).toBeNull();

    expect((await get(app, '/receipts?result=error')).data.map((r: any) => r.status)).toEqual([404, 401]);
    expect((await get(app, '/receipts?mapping=agent')).data.map((r: any) => r.runId)).toEqual([runId]);
    expect((await get(app, `/receipts?q=${runId.slice(-12)}`)).data).toHaveLength(1);
    const receipt = await get(app, `/receipts/${woke.id}`);
    expect(receipt).toMatchObject({ id: woke.id, payload: null, replays: [] });
  });

  it('pages newest first with a cursor: no row twice, none skipped', async () => {
    const app = await testApp();
    for (let i = 0; i < 7; i++) await app.request('/hooks/wake', post({ text: `event ${i}`, mode: 'next-heartbeat' }));
    await eventually(async () => (await get(app, '/receipts')).data.length === 7);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: any = await get(app, `/receipts?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...page.data.map((r: any) => r.id));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(7);
    const events = await get(app, '/events?session=main&limit=2');
    expect(events.data.map((e: any) => e.text)).toEqual(['event 6', 'event 5']);
    const older = await get(app, `/events?session=main&limit=2&cursor=${events.nextCursor}`);
    expect(older.data.map((e: any) => e.text)).toEqual(['event 4', 'event 3']);

    const bad = await app.request('/admin/receipts?cursor=nope!', { headers: admin });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ ok: false, error: expect.stringMatching(/^cursor /), code: 'HERALD_INVALID_FIELD' });
    expect((await app.request('/admin/runs?status=lost', { headers: admin })).status).toBe(400);
    expect((await app.request('/admin/receipts?since=yesterday', { headers: admin })).status).toBe(400);
    const future = await get(app, `/receipts?since=${new Date(Date.now() + 3_600_000).toISOString()}`);
    expect(future.data).toEqual([]);
  });

  it('retains the payload of a mapping that opts in, without secret headers; replays it through the current mappings', async () => {
    const app = await testApp({ hooks: { mappings: [github] } });
    const res = await app.request(
      '/hooks/github',
      post({ action: 'opened', issue: { title: 'Crash on start' } }, { ...hookHeaders(), 'x-github-event': 'issues', cookie: 'a=b', 'x-hub-signature-256': 'sha256=00' }),
    );
    expect(res.status).toBe(202);
    await app.gateway.runs.idle();
    const [receipt] = (await eventually(async () => (await get(app, '/receipts?path=github')).data.length && (await get(app, '/receipts?path=github')).data)) as any[];
    expect(receipt.retainedUntil).toEqual(expect.any(String));
    // 72 hours by default
    expect(Date.parse(receipt.retainedUntil) - Date.parse(receipt.receivedAt)).toBe(72 * 3_600_000);
    const detail = await get(app, `/receipts/${receipt.id}`);
    expect(JSON.parse(detail.payload.body)).toEqual({ action: 'opened', issue: { title: 'Crash on start' } });
    expect(detail.payload.headers['x-github-event']).toBe('issues');
    for (const secret of ['authorization', 'cookie', 'x-hub-signature-256']) expect(detail.payload.headers).not.toHaveProperty(secret);
    expect(JSON.stringify(detail)).not.toContain(HOOK_TOKEN);

    const replay = await app.request(`/admin/receipts/${receipt.id}/replay`, adminPost());
    expect(replay.status).toBe(200);
    const replayed = (await replay.json()) as any;
    expect(replayed).toMatchObject({ replayOf: receipt.id, status: 202, outcome: 'agent', mappingId: 'github-issues', authMethod: 'operator' });
    expect(replayed.runId).not.toBe(receipt.runId);
    await app.gateway.runs.idle();
    const run = await get(app, `/runs/${replayed.runId}`);
    expect(run).toMatchObject({ status: 'succeeded', message: 'Issue Crash on start was opened' });
    expect((await get(app, `/receipts/${receipt.id}`)).replays.map((r: any) => r.id)).toEqual([replayed.id]);

    // a request that was never retained cannot be replayed
    await app.request('/hooks/wake', post({ text: 'not kept' }));
    const wake = (await eventually(async () => (await get(app, '/receipts?path=wake')).data[0])) as any;
    const refused = await app.request(`/admin/receipts/${wake.id}/replay`, adminPost());
    expect(refused.status).toBe(409);
    expect((await app.request('/admin/receipts/nope/replay', adminPost())).status).toBe(404);
  });

  it('prunes expired payloads and the oldest beyond the size cap; /metrics shows the retained bytes', async () => {
    // the cap is passed to prune() below: the pruner's own run at start must not race the requests
    const app = await testApp({ hooks: { retainPayloads: true } });
    const body = { text: 'x'.repeat(40), mode: 'next-heartbeat' };
    for (let i = 0; i < 3; i++) await app.request('/hooks/wake', post({ ...body, text: `${i}${body.text}` }));
    const size = JSON.stringify({ ...body, text: `0${body.text}` }).length;
    await eventually(async () => (await app.gateway.store.receipts.retainedBytes()) === 3 * size);
    const scrape = async () => (await (await app.request('/metrics', { headers: admin })).text()).match(/^herald_retained_payload_bytes (\d+)/m)?.[1];
    expect(await scrape()).toBe(String(3 * size));

    const pruned = await app.gateway.store.receipts.prune({ now: Date.now(), maxTotalBytes: 100, receiptsBefore: 0 });
    expect(pruned).toEqual({ payloads: 2, receipts: 0 });
    expect(await scrape()).toBe(String(size));
    const retained = await get(app, '/receipts?retained=true');
    expect(retained.data).toHaveLength(1);

    // past the TTL the last one goes too, and receipts past receiptDays
    expect(await app.gateway.store.receipts.prune({ now: Date.now() + 73 * 3_600_000, maxTotalBytes: 100, receiptsBefore: Date.now() + 1 })).toEqual({ payloads: 1, receipts: 3 });
    expect(await scrape()).toBe('0');
  });
});

describe('runs', () => {
  it('lists and opens runs: the prompt with its safety wrapper, transcript, model, receipt; re-runs link back', async () => {
    const app = await testApp({ hooks: { mappings: [github] } });
    const res = await app.request('/hooks/github', post({ action: 'closed', issue: { title: 'Old bug' } }));
    const { runId } = (await res.json()) as { runId: string };
    await app.request('/hooks/agent', post({ message: 'Other', deliver: false, sessionKey: 'other:1' }));
    await app.gateway.runs.idle();

    const all = await get(app, '/runs');
    expect(all.data).toHaveLength(2);
    expect((await get(app, '/runs?mapping=github-issues')).data.map((r: any) => r.id)).toEqual([runId]);
    expect((await get(app, '/runs?session=other:1')).data).toHaveLength(1);
    expect((await get(app, '/runs?status=failed')).data).toEqual([]);

    const run = await get(app, `/runs/${runId}`);
    expect(run).toMatchObject({ id: runId, status: 'succeeded', mappingId: 'github-issues', name: 'GitHub', model: 'embedded/extractive', rerunOf: null });
    expect(run.prompt).toContain('Issue Old bug was closed');
    expect(run.prompt).toMatch(/EXTERNAL_UNTRUSTED_CONTENT/);
    expect(run.transcript.map((m: any) => m.role)).toEqual(['user', 'assistant']);
    expect(run.transcript[1].content).toBe(run.reply);
    expect(run.receipt).toMatchObject({ path: 'github', runId });

    const rerun = await app.request(`/admin/runs/${runId}/rerun`, adminPost());
    expect(rerun.status).toBe(202);
    const again = (await rerun.json()) as { runId: string; rerunOf: string };
    expect(again.rerunOf).toBe(runId);
    await app.gateway.runs.idle();
    expect(await get(app, `/runs/${again.runId}`)).toMatchObject({ status: 'succeeded', rerunOf: runId, message: 'Issue Old bug was closed' });
    expect((await get(app, `/runs/${runId}`)).reruns).toEqual([again.runId]);
    expect((await get(app, `/runs?rerunOf=${runId}`)).data.map((r: any) => r.id)).toEqual([again.runId]);

    // a finished run is not cancellable
    const cancel = await app.request(`/admin/runs/${runId}/cancel`, adminPost());
    expect(cancel.status).toBe(409);
    expect(await cancel.json()).toEqual({ ok: false, error: 'run is succeeded, not queued or waiting for approval', code: 'HERALD_RUN_NOT_CANCELLABLE' });
  });

  it('cancels a queued run: it never executes', async () => {
    const app = await testApp();
    await app.gateway.runs.stop(0); // nothing executes from here on
    const now = Date.now();
    await app.gateway.store.runs.insert({
      id: 'queued-1', status: 'queued', agentId: 'main', name: 'Later', sessionKey: 'hook:x', message: 'm', action: { kind: 'agent', message: 'm', name: 'Later', agentId: 'main', wakeMode: 'now', deliver: false, channel: 'last', allowUnsafeExternalContent: false, source: { mappingId: 'agent', path: 'agent' } },
      reply: null, error: null, createdAt: now, startedAt: null, finishedAt: null,
    });
    const res = await app.request('/admin/runs/queued-1/cancel', adminPost());
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: 'queued-1', status: 'cancelled', finishedAt: expect.any(String) });
    expect(await app.gateway.store.runs.claim({ owner: 'another-replica', now: Date.now(), until: Date.now() + 60_000 }, 10)).toEqual([]);
    expect((await get(app, '/runs?status=cancelled')).data).toHaveLength(1);
  });
});

describe('mappings', () => {
  it('lists every mapping with its origin and match rules, secrets redacted', async () => {
    const app = await testApp({ hooks: { mappings: [github, { id: 'signed', match: { path: 'signed' }, messageTemplate: 'x', auth: { type: 'github', secret: 'topsecret-value' } }] } });
    const { data } = await get(app, '/mappings');
    expect(data.map((m: any) => [m.id, m.origin])).toEqual([
      ['wake', 'built-in'],
      ['agent', 'built-in'],
      ['github-issues', 'hooks.mappings[0]'],
      ['signed', 'hooks.mappings[1]'],
    ]);
    expect(data[2]).toMatchObject({ path: 'github', match: { path: 'github' }, retainPayloads: true, signed: false, fixtures: [] });
    expect(data[3].definition.auth.secret).toBe('(set)');
    expect(JSON.stringify(data)).not.toContain('topsecret-value');
    expect((await get(app, '/mappings?path=github')).data.map((m: any) => m.id)).toEqual(['github-issues']);
  });

  it('dry-runs a payload against the configured mappings and against a draft; a JSONata error points at its expression', async () => {
    const app = await testApp({ hooks: { mappings: [github] } });
    const payload = { action: 'opened', issue: { title: 'Crash' } };
    const current = await app.request('/admin/mappings/test', adminPost({ path: 'github', payload }));
    expect(current.status).toBe(200);
    const result = (await current.json()) as any;
    expect(result.outcome).toMatchObject({ type: 'action', mappingId: 'github-issues', action: { kind: 'agent', message: 'Issue Crash was opened' } });
    expect(result.outcome.prompt).toContain('Issue Crash was opened');

    const draft = { ...github, messageTemplate: 'New issue: {{ $uppercase(issue.title) }}' };
    const drafted = (await (await app.request('/admin/mappings/test', adminPost({ path: 'github', payload, draft }))).json()) as any;
    expect(drafted.outcome.action.message).toBe('New issue: CRASH');

    const broken = (await (await app.request('/admin/mappings/test', adminPost({ path: 'github', payload, draft: { ...github, messageTemplate: 'Hi {{ issue.title + }}' } }))).json()) as any;
    expect(broken.outcome).toBeUndefined();
    expect(broken.faults).toEqual([{ field: 'messageTemplate', message: expect.stringContaining('template error'), expression: 'issue.title +', position: expect.any(Number) }]);
    // a template that only fails on this payload is pointed at too: its field and expression
    const cast = (await (await app.request('/admin/mappings/test', adminPost({ path: 'github', payload, draft: { ...github, name: 'GH {{ $number(issue.title) }}' } }))).json()) as any;
    expect(cast.faults).toEqual([]);
    expect(cast.outcome).toMatchObject({ type: 'error', status: 500, code: 'HERALD_MAPPING_FAILED', mappingId: 'github-issues' });
    expect(cast.outcome.fault).toEqual({ field: 'name', message: expect.stringContaining('Unable to cast value to a number'), expression: '$number(issue.title)', position: expect.any(Number) });
    const unknown = (await (await app.request('/admin/mappings/test', adminPost({ path: 'github', payload, draft: { ...github, colour: 'red' } }))).json()) as any;
    expect(unknown.faults).toEqual([{ field: 'colour', message: 'unknown key' }]);

    const refused = (await (await app.request('/admin/mappings/test', adminPost({ path: 'nowhere', payload }))).json()) as any;
    expect(refused.outcome).toMatchObject({ type: 'error', status: 404, code: 'HERALD_MAPPING_NOT_FOUND' });
    expect((await app.request('/admin/mappings/test', adminPost({ payload }))).status).toBe(400);
    // a dry run starts nothing
    expect((await get(app, '/runs')).data).toEqual([]);
  });

  it('backtests a draft over the retained requests of its path: before and after, per request', async () => {
    const app = await testApp({ hooks: { mappings: [github] } });
    await app.request('/hooks/github', post({ action: 'opened', issue: { title: 'One' } }));
    await app.request('/hooks/github', post({ action: 'labeled', issue: { title: 'Two' } }));
    await app.gateway.runs.idle();
    await eventually(async () => (await get(app, '/receipts?retained=true')).data.length === 2);
    const draft = { ...github, match: { path: 'github', when: "action = 'opened'" } };
    const res = await app.request('/admin/mappings/backtest', adminPost({ draft, limit: 10 }));
    expect(res.status).toBe(200);
    const { results, path, faults } = (await res.json()) as any;
    expect(faults).toEqual([]);
    expect(path).toBe('github');
    expect(results.map((r: any) => [r.before.type, r.after.type, r.changed])).toEqual([
      ['action', 'error', true],
      ['action', 'action', false],
    ]);
    expect(results[0].after).toMatchObject({ status: 404 });
    // backtesting dispatches nothing
    expect((await get(app, '/runs')).data).toHaveLength(2);
  });
});

describe('deliveries', () => {
  it('abandons a pending delivery; a delivered or unknown one is refused', async () => {
    const app = await testApp();
    const now = Date.now();
    const base = { runId: null, kind: 'heartbeat' as const, channel: 'telegram', to: '1', text: 't', sessionKey: 'main', agentId: 'main', attempts: 0, partsSent: 0, lastError: null, nextAttemptAt: now + 3_600_000, leaseOwner: null, leaseUntil: null, createdAt: now, updatedAt: now, deliveredAt: null };
    await app.gateway.store.deliveries.insert({ ...base, id: 'd-pending', status: 'pending' });
    await app.gateway.store.deliveries.insert({ ...base, id: 'd-done', status: 'delivered', deliveredAt: now });
    const res = await app.request('/admin/deliveries/d-pending/abandon', adminPost());
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: 'd-pending', status: 'abandoned' });
    expect((await app.request('/admin/deliveries/d-done/abandon', adminPost())).status).toBe(409);
    expect((await app.request('/admin/deliveries/nope/abandon', adminPost())).status).toBe(404);
    expect((await get(app, '/deliveries?status=abandoned')).data.map((d: any) => d.id)).toEqual(['d-pending']);
    expect((await get(app, '/deliveries?channel=telegram')).data).toHaveLength(2);
    expect((await get(app, '/deliveries?session=main&status=pending')).data).toEqual([]);
    expect((await get(app, '/deliveries?session=hook:x')).data).toEqual([]);
    expect((await get(app, '/deliveries?session=main')).data).toHaveLength(2);
  });
});

describe('workspace', () => {
  it('creates an API key shown once, lists keys by name only, revokes it', async () => {
    const app = await testApp();
    const res = await app.request('/admin/keys', adminPost({ name: 'ci' }));
    expect(res.status).toBe(201);
    const created = (await res.json()) as any;
    expect(created.key).toMatch(/^hsk_/);
    expect((await app.request('/v1/agents', { headers: { authorization: `Bearer ${created.key}` } })).status).toBe(200);
    const { data } = await get(app, '/keys');
    expect(data.map((k: any) => [k.name, k.source])).toEqual([['test', 'config'], ['ci', 'store']]);
    expect(JSON.stringify(data)).not.toContain(created.key);
    expect(JSON.stringify(data)).not.toContain(API_KEY);
    const taken = await app.request('/admin/keys', adminPost({ name: 'ci' }));
    expect(taken.status).toBe(409);
    expect(await taken.json()).toMatchObject({ ok: false, error: 'an API key named "ci" exists' });
    const configured = await app.request('/admin/keys', adminPost({ name: 'test' }));
    expect(configured.status).toBe(409);
    const unknownAgent = await app.request('/admin/keys', adminPost({ name: 'other', agents: ['nobody'] }));
    expect(unknownAgent.status).toBe(400);
    expect(JSON.stringify(await unknownAgent.json())).toContain('no agent \\"nobody\\"');
    expect((await app.request('/admin/keys/ci', { method: 'DELETE', headers: admin })).status).toBe(200);
    expect((await app.request('/v1/agents', { headers: { authorization: `Bearer ${created.key}` } })).status).toBe(401);
    expect((await app.request('/admin/keys/ci', { method: 'DELETE', headers: admin })).status).toBe(404);
  });

  it('lists agents; uploads, lists and deletes knowledge for any agent', async () => {
    const app = await testApp();
    const form = new FormData();
    form.set('agent_id', 'main');
    form.set('file', new File(['Refunds are issued within 14 days.'], 'refunds.md', { type: 'text/markdown' }));
    const up = await app.request('/admin/knowledge/upload', { method: 'POST', headers: admin, body: form });
    expect(up.status).toBe(201);
    const doc = (await up.json()) as any;
    expect((await get(app, '/agents')).data).toEqual([expect.objectContaining({ id: 'main', documents: 1, runsHooks: true, retrieval: 'bm25', budget: null })]);
    expect((await get(app, '/knowledge?agent_id=main')).data.map((d: any) => d.filename)).toEqual(['refunds.md']);
    expect((await app.request(`/admin/knowledge/${doc.id}`, { method: 'DELETE', headers: admin })).status).toBe(200);
    expect((await get(app, '/knowledge')).data).toEqual([]);
  });
});

describe('the OpenAPI document', () => {
  it('documents every admin route, generated from the schemas that validate them', async () => {
    const app = await testApp();
    const doc = await get(app, '/openapi.json');
    expect(doc.openapi).toBe('3.1.0');
    const routes = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`));
    for (const route of [
      'GET /receipts', 'GET /receipts/{id}', 'POST /receipts/{id}/replay',
      'GET /runs', 'GET /runs/{id}', 'POST /runs/{id}/rerun', 'POST /runs/{id}/cancel',
      'GET /events', 'GET /sessions', 'GET /sessions/{key}/messages',
      'GET /deliveries', 'POST /deliveries/{id}/retry', 'POST /deliveries/{id}/abandon',
      'GET /mappings', 'POST /mappings/test', 'POST /mappings/backtest',
      'GET /overview', 'GET /stream', 'GET /agents', 'GET /keys', 'POST /keys', 'DELETE /keys/{name}',
      'GET /knowledge', 'GET /knowledge/{id}', 'POST /knowledge/upload', 'DELETE /knowledge/{id}',
    ]) expect(routes).toContain(route.replace(' /', ' /admin/'));
    expect(routes.every((r) => r.includes(' /admin/'))).toBe(true);
    const receipts = doc.paths['/admin/receipts'].get;
    expect(receipts.responses['200'].content['application/json'].schema.properties.data.items.properties).toHaveProperty('idempotencyKey');
    const limit = (receipts.parameters as any[]).find((p) => p.name === 'limit');
    expect(limit).toMatchObject({ in: 'query', required: false });
    // the schema that documents the query is the one that validates it
    expect((await app.request('/admin/receipts?outcome=lost', { headers: admin })).status).toBe(400);
    expect((await app.request('/admin/openapi.json')).status).toBe(401);
  });
});

describe('overview', () => {
  it('counts requests, runs and deliveries per minute, and queue depths', async () => {
    const app = await testApp();
    await app.request('/hooks/agent', post({ message: 'a', deliver: false }));
    await app.request('/hooks/wake', post({ text: 'b', mode: 'next-heartbeat' }));
    await app.request('/hooks/nothing', post({}));
    await app.gateway.runs.idle();
    const overview = await eventually(async () => {
      const o = await get(app, '/overview');
      return o.perMinute.requests.reduce((n: number, m: any) => n + m.total, 0) === 3 && o;
    });
    expect(overview.perMinute.requests.reduce((n: number, m: any) => n + m.failed, 0)).toBe(1);
    expect(overview.perMinute.runs.reduce((n: number, m: any) => n + m.total, 0)).toBe(1);
    expect(overview.queues).toMatchObject({ runsQueued: 0, runsRunning: 0, eventsPending: expect.any(Number) });
    const sessions = await get(app, '/sessions');
    expect(sessions.data.length).toBeGreaterThan(0);
    expect(sessions.data[0]).toMatchObject({ key: expect.any(String), messages: 2 });
    expect(overview.toolServers).toEqual([]);
  });

  it("shows each MCP server's health: one whose command does not exist is failed, with its error", async () => {
    const app = await testApp({ tools: { mcpServers: { missing: { command: 'herald-no-such-mcp-server' } } } });
    const [missing] = await eventually(async () => {
      const o = await get(app, '/overview');
      return o.toolServers[0]?.state === 'failed' && o.toolServers;
    });
    expect(missing).toMatchObject({ server: 'missing', transport: 'stdio', state: 'failed', tools: 0, listed: null, restarts: expect.any(Number) });
    expect(missing.lastError).toEqual(expect.stringContaining('herald-no-such-mcp-server'));
    expect(Date.parse(missing.since)).not.toBeNaN();
    // declared in the document like the rest
    const doc = await get(app, '/openapi.json');
    const body = doc.paths['/admin/overview'].get.responses['200'].content['application/json'].schema;
    expect(Object.keys(body.properties.toolServers.items.properties)).toEqual(['server', 'transport', 'state', 'since', 'lastError', 'tools', 'listed', 'restarts']);
  });
});
