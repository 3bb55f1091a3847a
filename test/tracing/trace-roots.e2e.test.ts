import { afterEach, describe, expect, it } from 'vitest';
import { runSpan } from '../../src/runtime/runs/run-span.js';
import type { RunRecord } from '../../src/store/port.js';
import { flushTracing, startTracing } from '../../src/tracing/tracing.js';
import { startFakeCollector, type FakeCollector } from '../helpers/fake-otlp-collector.js';
import { GATEWAY_TOKEN, baseConfig, eventually, startHerald, type RunningHerald } from '../helpers/start-herald.js';

/**
 * Which requests start a trace, and a run's wait in the queue, exported to a real OTLP receiver:
 * the operator's reads (the console's polls, probes, the metrics scrape) start none, an operator's
 * action is a root trace of its own; `herald.run.queued` is exported for every run, a run claimed
 * in the millisecond it was made too.
 */
let herald: RunningHerald | undefined;
let collector: FakeCollector | undefined;
afterEach(async () => {
  await herald?.stop();
  herald = undefined;
  await startTracing(undefined);
  await collector?.close();
  collector = undefined;
});

const admin = (path: string, method = 'GET') => fetch(`${herald!.url}/admin${path}`, { method, headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });

describe('trace roots', { timeout: 60_000 }, () => {
  it("an operator's reads start no trace; an operator's action is a root trace of its own", async () => {
    collector = await startFakeCollector();
    herald = await startHerald(baseConfig({ tracing: { enabled: true, endpoint: collector.url } }));
    expect((await admin('/runs')).status).toBe(200);
    expect((await admin('/overview')).status).toBe(200);
    expect((await fetch(`${herald.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${herald.url}/v1/models`, { headers: { authorization: 'Bearer nobody' } })).status).toBe(401);
    expect((await admin('/reload', 'POST')).status).toBe(200);
    await herald.stop();
    const spans = (await eventually(() => (collector!.spans.some((s) => s.name === 'POST /admin/reload') ? collector!.spans : undefined)))!;
    const servers = spans.filter((s) => s.kind === 2).map((s) => s.name);
    expect(servers.sort()).toEqual(['GET /v1/models', 'POST /admin/reload']);
    expect(spans.find((s) => s.name === 'POST /admin/reload')!.parentSpanId).toBe('');
  });
});

describe('herald.run.queued', () => {
  it('is exported for a run claimed in the millisecond it was made, as a span of no length', async () => {
    collector = await startFakeCollector();
    await startTracing({ protocol: 'http/json', url: `${collector.url}/v1/traces`, headers: {}, serviceName: 'herald-test', serviceVersion: '0' });
    const at = Date.now() - 1000;
    const run = { id: 'run-same-ms', agentId: 'main', createdAt: at, startedAt: at, action: { source: { mappingId: 'tickets' } }, traceContext: null } as unknown as RunRecord;
    await runSpan(run, async () => 'done');
    await flushTracing();
    const ofRun = (name: string) => collector!.spans.find((s) => s.name === name && s.attributes['herald.run.id'] === 'run-same-ms');
    const [queued, executed] = (await eventually(() => (ofRun('herald.run.queued') && ofRun('herald.run') ? [ofRun('herald.run.queued')!, ofRun('herald.run')!] : undefined)))!;
    // to the millisecond: a time in ms becomes OTLP's nanoseconds through floating point (…401.9998 for …402)
    expect([Math.round(queued.startMs), Math.round(queued.endMs)]).toEqual([at, at]);
    expect(executed.attributes['herald.run.queue_wait_ms']).toBe(0);
  });
});
