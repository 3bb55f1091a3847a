import { afterEach, describe, expect, it } from 'vitest';
import { GATEWAY_TOKEN, HOOK_TOKEN, hookHeaders } from '../../helpers/start-herald.js';
import { SseReader } from '../../console/sse-events.js';
import { testApp } from '../app-fixture.js';

const admin = { authorization: `Bearer ${GATEWAY_TOKEN}` };
const post = (body: unknown) => ({ method: 'POST', headers: hookHeaders(), body: JSON.stringify(body) });
const total = (rows: { total: number }[]) => rows.reduce((n, r) => n + r.total, 0);

const readers: SseReader[] = [];
afterEach(async () => {
  for (const r of readers.splice(0)) await r.close();
});

/** the kinds named by `change` events until they include every one of `wanted` */
async function changesUntil(stream: SseReader, wanted: string[]): Promise<Set<string>> {
  const kinds = new Set<string>();
  await stream.until<{ kinds: string[] }>('change', (change) => {
    for (const k of change.kinds) kinds.add(k);
    return wanted.every((k) => kinds.has(k));
  });
  return kinds;
}

describe('the live stream (GET /admin/stream)', () => {
  it('pushes what changed and the fresh overview when a webhook is posted', async () => {
    const app = await testApp();
    const res = await app.request('/admin/stream', { headers: admin });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const stream = new SseReader(res.body!);
    readers.push(stream);
    const first = JSON.parse((await stream.next()).data);
    expect(stream.seen[0]!.event).toBe('overview');
    expect(total(first.perMinute.requests)).toBe(0);

    const agent = await app.request('/hooks/agent', post({ message: 'Customer 42 asks about refunds', deliver: false }));
    expect(agent.status).toBe(202);
    // the receipt, the run (queued, then finished) and its summary event on the main session
    await changesUntil(stream, ['receipts', 'runs', 'events']);
    const after = await stream.until<any>('overview', (o) => total(o.perMinute.requests) === 1 && total(o.perMinute.runs) === 1 && o.queues.runsQueued + o.queues.runsRunning === 0);
    expect(after.perMinute.requests[0].failed).toBe(0);

    await app.request('/hooks/wake', post({ text: 'Deploy finished', mode: 'next-heartbeat' }));
    await changesUntil(stream, ['events']);
    await stream.until<any>('overview', (o) => total(o.perMinute.requests) === 2 && o.queues.eventsPending >= 1);
    // never the body of a request, only counts and kinds
    expect(stream.seen.map((e) => e.data).join('\n')).not.toContain('Customer 42');
  });

  it('shows an operator action too: a delivery abandoned through the admin API', async () => {
    const app = await testApp();
    const now = Date.now();
    await app.gateway.store.deliveries.insert({
      id: 'd-1', runId: null, kind: 'heartbeat', channel: 'telegram', to: '1', text: 't', sessionKey: 'main', agentId: 'main', status: 'pending',
      attempts: 0, partsSent: 0, lastError: null, nextAttemptAt: now + 3_600_000, leaseOwner: null, leaseUntil: null, createdAt: now, updatedAt: now, deliveredAt: null,
    });
    const stream = new SseReader((await app.request('/admin/stream', { headers: admin })).body!);
    readers.push(stream);
    await stream.until<any>('overview', (o) => o.queues.deliveries.pending === 1);
    const res = await app.request('/admin/deliveries/d-1/abandon', { method: 'POST', headers: admin });
    expect(res.status).toBe(200);
    await changesUntil(stream, ['deliveries']);
    await stream.until<any>('overview', (o) => (o.queues.deliveries.pending ?? 0) === 0 && o.queues.deliveries.abandoned === 1);
  });

  it('refuses a stream without the gateway token', async () => {
    const app = await testApp();
    expect((await app.request('/admin/stream')).status).toBe(401);
    expect((await app.request('/admin/stream', { headers: { authorization: `Bearer ${HOOK_TOKEN}` } })).status).toBe(401);
  });
});
