import { describe, expect, it } from 'vitest';
import type { DeliveryRecord, ReceiptRecord } from '../../src/store/port.js';
import type { OpenStore } from './open-store-under-test.js';
import { queuedRun } from './run-record.js';

const TRACE = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const OTHER = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

const delivery = (id: string, over: Partial<DeliveryRecord> = {}): DeliveryRecord => ({
  id, runId: `run-${id}`, kind: 'run', channel: 'webhook', to: null, text: 'hi', sessionKey: 'hook:x', agentId: 'main',
  status: 'pending', attempts: 0, partsSent: 0, lastError: null, nextAttemptAt: 1, leaseOwner: null, leaseUntil: null,
  createdAt: 1, updatedAt: 1, deliveredAt: null, ...over,
});

const receipt = (id: string, over: Partial<ReceiptRecord> = {}): ReceiptRecord => ({
  id, requestId: `req-${id}`, receivedAt: Date.now(), method: 'POST', path: 'github', mappingId: 'github', status: 202, outcome: 'agent',
  errorCode: null, runId: null, eventId: null, idempotencyKey: null, authMethod: 'signature', signature: 'github', clientAddress: '127.0.0.1',
  bodyBytes: 10, latencyMs: 1, replayOf: null, retainedUntil: null, ...over,
});

/**
 * Traces across the async hops: the trace context a run and a delivery were made in comes back
 * with them, on any handle of the store and after a restart, so whichever replica executes them
 * later continues the request's trace; a receipt keeps its request's trace id.
 */
export function tracesCases(open: OpenStore) {
  describe('trace context', () => {
    it('a run keeps the traceparent it was made with: inserted, inserted claimed, admitted; read and claimed by another handle after a restart', async () => {
      const first = await open();
      await first.runs.insert({ ...queuedRun('t1', 1), traceContext: TRACE });
      await first.runs.insert({ ...queuedRun('t2', 2), traceContext: OTHER }, { owner: 'a', now: 2, until: Date.now() + 60_000 });
      const admitted = await first.runs.admit({ ...queuedRun('t3', Date.now()), traceContext: TRACE }, { mappingId: 'agent', concurrency: 1 });
      expect(admitted.type).toBe('queued');
      await first.runs.insert(queuedRun('t4', 4));
      await first.close();

      const store = await open(first);
      const other = await open(store);
      expect((await store.runs.get('t1'))?.traceContext).toBe(TRACE);
      expect((await store.runs.get('t2'))?.traceContext).toBe(OTHER);
      // a run made while tracing was off has none, and reads as before
      expect(await store.runs.get('t4')).not.toHaveProperty('traceContext');
      const claimed = await other.runs.claim({ owner: 'b', now: Date.now(), until: Date.now() + 60_000 }, 10);
      expect(Object.fromEntries(claimed.map((r) => [r.id, r.traceContext ?? null]))).toEqual({ t1: TRACE, t3: TRACE, t4: null });
    });

    it('a delivery keeps the traceparent it was queued in, and so does the fallback written with its failure', async () => {
      const store = await open();
      expect(await store.deliveries.insert(delivery('d1', { traceContext: TRACE }))).toBe(true);
      expect(await store.deliveries.insert(delivery('d2'))).toBe(true);
      const claimed = await store.deliveries.claim('d1', 'w', 2, Date.now() + 60_000);
      expect(claimed?.traceContext).toBe(TRACE);
      expect(await store.deliveries.failed('d1', 'w', 'gone', 3, delivery('d1-fallback', { runId: 'run-d1', fallbackOf: 'd1', traceContext: OTHER }))).toBe(true);
      const second = await open(store);
      expect((await second.deliveries.get('d1-fallback'))?.traceContext).toBe(OTHER);
      expect(await second.deliveries.get('d2')).not.toHaveProperty('traceContext');
    });

    it("a receipt keeps its request's trace id", async () => {
      const store = await open();
      await store.receipts.record(receipt('r1', { traceId: '0af7651916cd43dd8448eb211c80319c' }));
      await store.receipts.record(receipt('r2'));
      expect((await store.receipts.get('r1'))?.traceId).toBe('0af7651916cd43dd8448eb211c80319c');
      expect((await store.receipts.get('r2'))?.traceId ?? null).toBeNull();
    });
  });
}
