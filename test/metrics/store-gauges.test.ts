import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { registerStoreGauges } from '../../src/metrics/store-gauges.js';
import type { StoreCounts, StoreProbe } from '../../src/store/contracts/store-probe.js';

const counts: StoreCounts = {
  runs: { queued: 3, running: 1, waitingApproval: 0 },
  eventsPending: 2,
  eventsDropped: 0,
  deliveries: { pending: 4, sending: 0, delivered: 9, failed: 1, abandoned: 0 },
  knowledgeDocuments: 5,
  knowledgeChunks: 40,
};

/** a probe that answers `counts` (or fails) and counts its calls */
function probe(answer: () => Promise<StoreCounts>): StoreProbe & { calls: number } {
  const p = { calls: 0, ping: async () => {}, counts: () => (p.calls++, answer()) };
  return p;
}

describe('store gauges', () => {
  it('read the store once per scrape, whatever the number of gauges', async () => {
    const registry = new Registry();
    const store = probe(async () => counts);
    registerStoreGauges(registry, store);
    const text = await registry.metrics();
    expect(store.calls).toBe(1);
    expect(text).toContain('herald_store_up 1');
    expect(text).toContain('herald_runs{status="queued"} 3');
    expect(text).toContain('herald_runs{status="running"} 1');
    expect(text).toContain('herald_deliveries{status="failed"} 1');
    expect(text).toContain('herald_events_pending 2');
    expect(text).toContain('herald_knowledge_chunks 40');
    // the next scrape reads the store again: the figures are never cached past one scrape
    await new Promise((resolve) => setImmediate(resolve));
    await registry.metrics();
    expect(store.calls).toBe(2);
  });

  it('say the store is down, and drop the labelled series rather than leave them stale, when the store does not answer', async () => {
    const registry = new Registry();
    let up = true;
    registerStoreGauges(registry, probe(async () => (up ? counts : Promise.reject(new Error('connection refused')))));
    expect(await registry.metrics()).toContain('herald_runs{status="queued"} 3');
    up = false;
    await new Promise((resolve) => setImmediate(resolve));
    const text = await registry.metrics();
    expect(text).toContain('herald_store_up 0');
    expect(text).not.toContain('herald_runs{status="queued"}');
    expect(text).toContain('herald_events_pending 0');
  });
});
