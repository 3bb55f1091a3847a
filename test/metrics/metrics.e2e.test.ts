import { afterEach, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { API_KEY, GATEWAY_TOKEN, HOOK_TOKEN, eventually, hookHeaders } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';
import { completion } from '../models/fake-openai.js';

let herald: TestApp | undefined;
let fake: FakeServer | undefined;
afterEach(async () => {
  await herald?.stop();
  await fake?.close();
  herald = undefined;
  fake = undefined;
});

const gatewayAuth = { authorization: `Bearer ${GATEWAY_TOKEN}` };

async function scrape(h: TestApp): Promise<string> {
  const res = await h.request(`/metrics`, { headers: gatewayAuth });
  expect(res.status).toBe(200);
  return res.text();
}

/** the value of one sample of the Prometheus text format, 0 when the series is absent */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return 0;
}

async function hook(h: TestApp, path: string, body: unknown, token = HOOK_TOKEN): Promise<Response> {
  return h.request(`/hooks/${path}`, { method: 'POST', headers: hookHeaders(token), body: JSON.stringify(body) });
}

describe('GET /metrics', () => {
  it('answers only the gateway token: none, the hook token and an API key get 401', async () => {
    herald = await testApp();
    expect((await herald.request(`/metrics`)).status).toBe(401);
    const hookToken = await herald.request(`/metrics`, { headers: { authorization: `Bearer ${HOOK_TOKEN}` } });
    expect(hookToken.status).toBe(401);
    expect(await hookToken.json()).toEqual({ ok: false, error: 'unauthorized' });
    expect((await herald.request(`/metrics`, { headers: { authorization: `Bearer ${API_KEY}` } })).status).toBe(401);

    const res = await herald.request(`/metrics`, { headers: gatewayAuth });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toContain('# TYPE herald_http_requests_total counter');
    expect(text).toContain('# TYPE herald_http_request_duration_seconds histogram');
    // prom-client's process metrics, in this gateway's own registry
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).toContain('nodejs_heap_size_total_bytes');
    // the refusals were counted, under the surface they came to
    expect(sample(text, 'herald_http_requests_total', { surface: 'other', method: 'GET', status: '401' })).toBe(3);
  });

  it('counts requests by surface, hooks by mapping and outcome, finished runs and heartbeat turns', async () => {
    herald = await testApp({ hooks: { mappings: [{ id: 'github', match: { path: 'github' }, action: 'wake', textTemplate: 'push {{ ref }}' }] } });
    const before = await scrape(herald);
    expect(sample(before, 'herald_runs_total', { status: 'succeeded' })).toBe(0);
    expect(before).toContain('herald_runs_total{status="failed"} 0');

    expect((await hook(herald, 'wake', { text: 'deploy finished' })).status).toBe(200);
    expect((await hook(herald, 'github', { ref: 'main' })).status).toBe(200);
    expect((await hook(herald, 'agent', { message: 'summarise the deploy', deliver: false })).status).toBe(202);
    expect((await hook(herald, 'wake', { text: 'x' }, 'wrong-token-0123456789abcdef')).status).toBe(401);
    expect((await hook(herald, 'nothing-here', {})).status).toBe(404);
    expect((await hook(herald, 'wake', { text: 42 })).status).toBe(400);
    expect((await herald.request(`/v1/agents`, { headers: { authorization: `Bearer ${API_KEY}` } })).status).toBe(200);
    expect((await herald.request(`/admin/events?session=main`, { headers: gatewayAuth })).status).toBe(200);

    const text = await eventually(async () => {
      const t = await scrape(herald!);
      const done = sample(t, 'herald_runs_total', { status: 'succeeded' }) === 1 && sample(t, 'herald_heartbeat_turns_total', { outcome: 'succeeded' }) >= 1;
      return done ? t : undefined;
    });
    expect(sample(text, 'herald_hook_requests_total', { mapping: 'wake', outcome: 'accepted' })).toBe(1);
    expect(sample(text, 'herald_hook_requests_total', { mapping: 'github', outcome: 'accepted' })).toBe(1);
    expect(sample(text, 'herald_hook_requests_total', { mapping: 'agent', outcome: 'accepted' })).toBe(1);
    expect(sample(text, 'herald_hook_requests_total', { mapping: 'none', outcome: 'refused' })).toBe(1);
    expect(sample(text, 'herald_hook_requests_total', { mapping: 'none', outcome: 'unmatched' })).toBe(1);
    expect(sample(text, 'herald_hook_requests_total', { outcome: 'invalid' })).toBe(1);

    expect(sample(text, 'herald_http_requests_total', { surface: 'hooks', method: 'POST', status: '200' })).toBe(2);
    expect(sample(text, 'herald_http_requests_total', { surface: 'hooks', method: 'POST', status: '202' })).toBe(1);
    expect(sample(text, 'herald_http_requests_total', { surface: 'hooks', method: 'POST', status: '401' })).toBe(1);
    expect(sample(text, 'herald_http_requests_total', { surface: 'v1', method: 'GET', status: '200' })).toBe(1);
    expect(sample(text, 'herald_http_requests_total', { surface: 'admin', method: 'GET', status: '200' })).toBe(1);
    expect(sample(text, 'herald_http_request_duration_seconds_count', { surface: 'hooks', method: 'POST' })).toBe(6);
    expect(sample(text, 'herald_http_request_duration_seconds_bucket', { surface: 'hooks', method: 'POST', le: '+Inf' })).toBe(6);
    expect(sample(text, 'herald_runs_total', { status: 'succeeded' })).toBe(1);

    // labels stay low-cardinality: no raw path, token or session key ever becomes a label value
    expect(text).not.toContain('nothing-here');
    expect(text).not.toContain('/hooks');
    expect(text).not.toContain(HOOK_TOKEN);
    expect(text).not.toContain('hook:');
  });

  it('reads its gauges from the store: unfinished runs, pending events, the outbox, the knowledge base', async () => {
    fake = await startFakeServer((r) => {
      if (r.path === '/inbox') return r.json?.to === 'broken' ? { status: 400, body: { error: 'no such recipient' } } : { status: 204, body: '' };
      if (r.json?.model === 'hang') return 'hang';
      if (r.json?.model === 'fail') return { status: 400, body: { error: { message: 'bad model', type: 'invalid_request_error' } } };
      return { body: completion('ok') };
    });
    herald = await testApp({
      models: { providers: { up: { api: 'openai', baseUrl: `${fake.url}/v1` } } },
      channels: { webhook: { url: `${fake.url}/inbox` } },
      delivery: { baseDelayMs: 10, maxDelayMs: 50, maxAttempts: 2 },
    });
    const empty = await scrape(herald);
    expect(sample(empty, 'herald_store_up')).toBe(1);
    expect(sample(empty, 'herald_events_pending')).toBe(0);
    expect(sample(empty, 'herald_runs', { status: 'running' })).toBe(0);
    expect(sample(empty, 'herald_deliveries', { status: 'delivered' })).toBe(0);
    expect(empty).toContain('herald_deliveries{status="failed"} 0');
    expect(sample(empty, 'herald_knowledge_documents')).toBe(0);

    // heartbeat off: events wait
    expect((await hook(herald, 'wake', { text: 'first', mode: 'next-heartbeat' })).status).toBe(200);
    expect((await hook(herald, 'wake', { text: 'second', mode: 'next-heartbeat' })).status).toBe(200);
    const agent = (body: Record<string, unknown>) => hook(herald!, 'agent', { wakeMode: 'next-heartbeat', ...body });
    expect((await agent({ message: 'tell ops', channel: 'webhook', to: 'ops' })).status).toBe(202);
    expect((await agent({ message: 'tell nobody', channel: 'webhook', to: 'broken' })).status).toBe(202);
    expect((await agent({ message: 'this one fails', model: 'up/fail', deliver: false })).status).toBe(202);
    expect((await agent({ message: 'this one hangs', model: 'up/hang', deliver: false })).status).toBe(202);

    const form = new FormData();
    form.append('agent_id', 'main');
    form.append('file', new Blob(['# Refunds\n\nRefunds are issued within 14 days.\n\n# Shipping\n\nParcels leave within two days.']), 'policy.md');
    const upload = await herald.request(`/v1/knowledge/upload`, { method: 'POST', headers: { authorization: `Bearer ${API_KEY}` }, body: form });
    expect(upload.status).toBe(201);
    const document = (await upload.json()) as Record<string, unknown>;
    const chunks = Number(document.chunk_count ?? document.chunks ?? document.chunkCount);
    expect(chunks).toBeGreaterThan(0);

    const text = await eventually(async () => {
      const t = await scrape(herald!);
      const settled =
        sample(t, 'herald_runs', { status: 'running' }) === 1 &&
        sample(t, 'herald_deliveries', { status: 'delivered' }) === 1 &&
        sample(t, 'herald_deliveries', { status: 'failed' }) === 1 &&
        sample(t, 'herald_runs_total', { status: 'failed' }) === 1;
      return settled ? t : undefined;
    });
    expect(sample(text, 'herald_runs', { status: 'queued' })).toBe(0);
    expect(sample(text, 'herald_runs_total', { status: 'succeeded' })).toBe(2);
    expect(sample(text, 'herald_deliveries', { status: 'pending' })).toBe(0);
    // two wakes, the summaries of the three finished runs and the failed delivery's notice: no heartbeat has taken them
    const events = await herald.request(`/admin/events?session=main`, { headers: gatewayAuth });
    const pending = ((await events.json()) as { data: { status: string }[] }).data.filter((e) => e.status === 'pending');
    expect(pending).toHaveLength(6);
    expect(sample(text, 'herald_events_pending')).toBe(6);
    expect(sample(text, 'herald_knowledge_documents')).toBe(1);
    expect(sample(text, 'herald_knowledge_chunks')).toBe(chunks);
  });

  it('is off with gateway.metrics.enabled false: 404, even with the token', async () => {
    herald = await testApp({ gateway: { metrics: { enabled: false } } });
    const res = await herald.request(`/metrics`, { headers: gatewayAuth });
    expect(res.status).toBe(404);
    expect(herald.gateway.metrics).toBeUndefined();
    expect((await herald.request(`/readyz`)).status).toBe(200);
  });
});

describe('GET /readyz', () => {
  it('says 200 while the store answers and 503 once it does not, without a token', async () => {
    herald = await testApp();
    const ready = await herald.request(`/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ ok: true });
    expect((await herald.request(`/healthz`)).status).toBe(200);

    await herald.gateway.store.close();
    const down = await herald.request(`/readyz`);
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({ ok: false, error: 'store unavailable' });
    // the process still lives and says so; the metrics say the store is gone
    expect((await herald.request(`/healthz`)).status).toBe(200);
    expect(sample(await scrape(herald), 'herald_store_up')).toBe(0);
  });
});
