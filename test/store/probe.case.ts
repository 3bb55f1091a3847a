import { describe, expect, it } from 'vitest';
import type { OpenStore } from './open-store-under-test.js';
import { queuedRun } from './run-record.js';

/** what /readyz and /metrics ask of the store */
export function probeCases(open: OpenStore) {
  describe('probe', () => {
    it('answers a ping and counts unfinished runs, pending events and deliveries by status', async () => {
      const store = await open();
      await store.probe.ping();
      expect(await store.probe.counts()).toEqual({
        runs: { queued: 0, running: 0 }, eventsPending: 0, eventsDropped: 0, deliveries: { pending: 0, sending: 0, delivered: 0, failed: 0, abandoned: 0 }, knowledgeDocuments: 0, knowledgeChunks: 0,
      });
      await store.runs.insert(queuedRun('r1'));
      await store.runs.insert(queuedRun('r2'));
      await store.runs.claim({ owner: 'a', now: 5, until: Date.now() + 60_000 }, 1);
      await store.events.enqueue('main', 'x', 20);
      const now = Date.now();
      await store.deliveries.insert({
        id: 'd1', runId: null, kind: 'heartbeat', channel: 'telegram', to: '1', text: 'hi', sessionKey: 'main', agentId: 'main', status: 'pending',
        attempts: 0, partsSent: 0, lastError: null, nextAttemptAt: now, leaseOwner: null, leaseUntil: null, createdAt: now, updatedAt: now, deliveredAt: null,
      });
      expect(await store.probe.counts()).toMatchObject({ runs: { queued: 1, running: 1 }, eventsPending: 1, eventsDropped: 0, deliveries: { pending: 1, sending: 0 } });
      // past the cap the oldest pending events are dropped, and counted
      await store.events.enqueue('main', 'y', 1);
      await store.events.enqueue('main', 'z', 1);
      expect(await store.probe.counts()).toMatchObject({ eventsPending: 1, eventsDropped: 2 });
    });

    it('fails a ping once closed', async () => {
      const store = await open();
      await store.close();
      await expect(store.probe.ping()).rejects.toThrow();
    });
  });
}
