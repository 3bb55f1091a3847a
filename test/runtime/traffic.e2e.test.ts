import { afterEach, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { baseConfig, eventually, GATEWAY_TOKEN, hookHeaders } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';
import { completion } from '../models/fake-openai.js';

// a mapping's traffic (concurrency, rate, coalesce) over real sockets, on the store under test
// (SQLite, and PostgreSQL in the postgres project), against an OpenAI-compatible fake model
let herald: TestApp | undefined;
let fake: FakeServer | undefined;
afterEach(async () => {
  await herald?.stop();
  await fake?.close();
  herald = undefined;
  fake = undefined;
});

/** a mapping on hooks/<id> whose runs are governed by `traffic`; next-heartbeat: no heartbeat turn calls the model */
const governed = (id: string, traffic: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  id, match: { path: id }, messageTemplate: '{{ text }}', deliver: false, wakeMode: 'next-heartbeat', ...traffic, ...extra,
});

const config = (url: string, mappings: Record<string, unknown>[]) =>
  baseConfig({
    models: { providers: { fake: { api: 'openai', baseUrl: `${url}/v1`, apiKey: 'sk-fake-upstream' } } },
    agents: { defaults: { model: 'fake/test-model', maxConcurrent: 8 } },
    hooks: { mappings },
  });

const post = (h: TestApp, path: string, payload: Record<string, unknown>) =>
  h.request(`/hooks/${path}`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify(payload) });

async function accepted(h: TestApp, path: string, payload: Record<string, unknown>): Promise<{ runId: string; coalesced?: true }> {
  const res = await post(h, path, payload);
  expect(res.status).toBe(202);
  return (await res.json()) as { runId: string; coalesced?: true };
}

const admin = async (h: TestApp, path: string) => (await h.request(`/admin${path}`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).json() as Promise<Record<string, any>>;

const finished = (h: TestApp, id: string) =>
  eventually(async () => {
    const run = await admin(h, `/runs/${id}`);
    return ['queued', 'running'].includes(run.status) ? undefined : run;
  }, 20_000);

const metric = async (h: TestApp, line: string) => (await (await h.request(`/metrics`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).text()).split('\n').find((l) => l.startsWith(line));

describe("governing a mapping's traffic", () => {
  it('a burst on a mapping with concurrency 2 never has more than 2 model calls in flight; the others wait in order', async () => {
    let inFlight = 0;
    let most = 0;
    let release!: () => void;
    const hold = new Promise<void>((r) => (release = r));
    fake = await startFakeServer(async () => {
      most = Math.max(most, ++inFlight);
      try {
        await hold;
        return { body: completion('looked into it') };
      } finally {
        inFlight--;
      }
    });
    herald = await testApp(config(fake.url, [governed('burst', { concurrency: 2 })]));
    const h = herald;
    const runs = await Promise.all(Array.from({ length: 8 }, (_, i) => accepted(h, 'burst', { text: `push ${i}` })));
    await eventually(() => fake!.requests.length === 2);
    // the process has 8 slots: only the mapping's concurrency holds the other six back
    await new Promise((r) => setTimeout(r, 300));
    expect(fake.requests).toHaveLength(2);
    const waiting = await Promise.all(runs.map(({ runId }) => admin(h, `/runs/${runId}`)));
    expect(waiting.filter((r) => r.status === 'queued')).toHaveLength(6);
    expect(waiting.filter((r) => r.waited?.reason === 'concurrency')).toHaveLength(6);
    release();
    for (const { runId } of runs) expect((await finished(h, runId)).status).toBe('succeeded');
    expect(fake.requests).toHaveLength(8);
    expect(most).toBe(2);
    const waited = (await admin(h, '/runs?mapping=burst&limit=20')).data.filter((r: any) => r.waited);
    expect(waited).toHaveLength(6);
    expect(waited.every((r: any) => r.waited.reason === 'concurrency' && r.waited.ms >= 0)).toBe(true);
    expect(await metric(h, 'herald_runs_waited_total{mapping="burst",reason="concurrency"}')).toMatch(/ 6$/);
  });

  it('rate overflow reject: the run beyond the rate is refused with 429 and Retry-After, nothing stored', async () => {
    fake = await startFakeServer(() => ({ body: completion('ok') }));
    herald = await testApp(config(fake.url, [governed('deploys', { rate: { runs: 2, per: '1h', overflow: 'reject' } })]));
    await accepted(herald, 'deploys', { text: 'one' });
    await accepted(herald, 'deploys', { text: 'two' });
    const refused = await post(herald, 'deploys', { text: 'three' });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ ok: false, error: 'rate limited' });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect((await admin(herald, '/runs?mapping=deploys')).data).toHaveLength(2);
    expect(await metric(herald, 'herald_runs_rate_limited_total{mapping="deploys"}')).toMatch(/ 1$/);
  });

  it('rate overflow wait: the run beyond the rate is accepted and starts when the window allows', async () => {
    fake = await startFakeServer(() => ({ body: completion('ok') }));
    herald = await testApp(config(fake.url, [governed('builds', { rate: { runs: 1, per: '2s' } })]));
    const first = await accepted(herald, 'builds', { text: 'one' });
    const second = await accepted(herald, 'builds', { text: 'two' });
    const deferred = await admin(herald, `/runs/${second.runId}`);
    expect(deferred.waited).toMatchObject({ reason: 'rate' });
    expect(Date.parse(deferred.waited.until)).toBeGreaterThan(Date.parse(deferred.createdAt));
    const [one, two] = [await finished(herald, first.runId), await finished(herald, second.runId)];
    expect([one.status, two.status]).toEqual(['succeeded', 'succeeded']);
    // the store held it back until its slot: a window after the first one's start
    expect(Date.parse(two.startedAt)).toBeGreaterThanOrEqual(Date.parse(deferred.waited.until));
    expect(Date.parse(deferred.waited.until) - Date.parse(one.createdAt)).toBeGreaterThanOrEqual(2000);
    expect(two.waited.ms).toBeGreaterThan(0);
  });

  it('coalesces a burst of one key into one turn whose message lists them, across a restart', async () => {
    fake = await startFakeServer(() => ({ body: completion('one analysis') }));
    herald = await testApp(config(fake.url, [governed('alerts', { coalesce: { windowMs: 6000, key: '{{ service }}' } })]));
    const first = await accepted(herald, 'alerts', { service: 'db', text: 'disk full on db-1' });
    expect(first.coalesced).toBeUndefined();
    expect(await accepted(herald, 'alerts', { service: 'db', text: 'replication lag on db-2' })).toEqual({ ok: true, runId: first.runId, coalesced: true });
    const other = await accepted(herald, 'alerts', { service: 'web', text: '502s on web-1' });
    expect(other.runId).not.toBe(first.runId);
    herald = await herald.restart();
    expect(await accepted(herald, 'alerts', { service: 'db', text: 'db-1 unreachable' })).toEqual({ ok: true, runId: first.runId, coalesced: true });

    const run = await finished(herald, first.runId);
    expect(run).toMatchObject({ status: 'succeeded', coalescedCount: 3, waited: { reason: 'coalesce' } });
    expect((await finished(herald, other.runId)).status).toBe('succeeded');
    // two model calls for four events: one per key
    expect(fake.requests).toHaveLength(2);
    const asked = fake.requests.map((r) => String(r.json.messages.at(-1).content)).find((c) => c.includes('disk full'))!;
    expect(asked).toContain('Events that arrived together, in order:');
    expect(asked).toMatch(/1\. disk full on db-1[\s\S]*2\. replication lag on db-2[\s\S]*3\. db-1 unreachable/);
    expect(asked).not.toContain('502s');
    // each request's receipt names the run it went into
    expect((await admin(herald, `/receipts?run=${first.runId}`)).data).toHaveLength(3);
    expect(await metric(herald, 'herald_runs_coalesced_total{mapping="alerts"}')).toMatch(/ 1$/);
  });

  it('bounds one coalesced run by coalesce.maxEvents and coalesce.maxBytes: the event past either starts a new run', async () => {
    fake = await startFakeServer(() => ({ body: completion('noted') }));
    // a window longer than the test: the runs stay open, queued
    herald = await testApp(config(fake.url, [governed('alerts', { coalesce: { windowMs: 3_600_000, key: '{{ service }}', maxEvents: 3, maxBytes: 1000 } })]));
    const first = await accepted(herald, 'alerts', { service: 'db', text: 'lag 1' });
    expect(await accepted(herald, 'alerts', { service: 'db', text: 'lag 2' })).toMatchObject({ runId: first.runId, coalesced: true });
    expect(await accepted(herald, 'alerts', { service: 'db', text: 'lag 3' })).toMatchObject({ runId: first.runId, coalesced: true });
    // a fourth event: past maxEvents, a run of its own, which the next ones join
    const second = await accepted(herald, 'alerts', { service: 'db', text: 'lag 4' });
    expect(second.coalesced).toBeUndefined();
    expect(second.runId).not.toBe(first.runId);
    expect(await accepted(herald, 'alerts', { service: 'db', text: 'lag 5' })).toMatchObject({ runId: second.runId, coalesced: true });
    // past maxBytes: 1,100 bytes do not fit beside the run's 2 events, a third run starts
    const big = await accepted(herald, 'alerts', { service: 'db', text: 'x'.repeat(1100) });
    expect(big.runId).not.toBe(second.runId);
    const runs = await Promise.all([first, second, big].map((r) => herald!.gateway.store.runs.get(r.runId)));
    expect(runs.map((r) => r!.message.length)).toEqual([expect.any(Number), expect.any(Number), 1100]);
    expect(runs[0]!.message).toMatch(/^Events that arrived together, in order:\n\n1\. lag 1[\s\S]*\n\n3\. lag 3$/);
    expect(runs[1]!.message).toMatch(/\n\n2\. lag 5$/);
    expect(fake.requests).toHaveLength(0);
  });

  it('refuses a bad traffic setting at start, naming the mapping and the field', async () => {
    const bad = governed('deploys', { rate: { runs: 0, per: '0s' }, coalesce: { windowMs: 1000, key: '{{ ' } });
    const refused = testApp({ hooks: { mappings: [bad] } });
    await expect(refused).rejects.toThrow(/hooks\.mappings\[0\]\.rate\.runs \(mapping "deploys"\)/);
    await expect(refused).rejects.toThrow(/hooks\.mappings\[0\]\.rate\.per \(mapping "deploys"\): a duration longer than 0/);
  });

  it('refuses a traffic setting on a wake mapping, naming the mapping and the field', async () => {
    await expect(testApp({ hooks: { mappings: [{ id: 'pings', match: { path: 'pings' }, action: 'wake', textTemplate: 'ping', concurrency: 1 }] } })).rejects.toThrow(/pings[\s\S]*concurrency/);
  });
});
