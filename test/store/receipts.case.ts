import { describe, expect, it } from 'vitest';
import type { ReceiptRecord, RetainedPayload } from '../../src/store/port.js';
import type { OpenStore } from './open-store-under-test.js';

const receipt = (id: string, receivedAt: number, over: Partial<ReceiptRecord> = {}): ReceiptRecord => ({
  id, requestId: `req-${id}`, receivedAt, method: 'POST', path: 'orders', mappingId: 'orders', status: 500, outcome: 'error',
  errorCode: 'HERALD_MAPPING_FAILED', runId: null, eventId: null, idempotencyKey: null, authMethod: 'bearer', signature: null,
  clientAddress: '127.0.0.1', bodyBytes: 12, latencyMs: 1, replayOf: null, retainedUntil: null, ...over,
});
const payload = (id: string, expiresAt: number): RetainedPayload => ({
  receiptId: id, path: 'orders', body: new TextEncoder().encode('{"amount":1}'), headers: { 'content-type': 'application/json' }, query: {}, expiresAt,
});

const TRANSFORM = { stage: 'transform', mappingId: 'orders', cause: 'Error: amount ‹value› is not a number', at: 'orders.mjs:7' };
const SCHEMA = { stage: 'schema', mappingId: 'orders', cause: 'payload does not match the mapping schema: /amount must be number' };

/**
 * A receipt of a request whose mapping failed keeps where and why (stage, mapping, cause, a
 * transform's file:line) through every read, with or without its payload kept; the payload kept
 * for replay expires with the retention like any other, the failure stays on the receipt.
 */
export function receiptsCases(open: OpenStore) {
  describe('receipts of failed mappings', () => {
    it('the failure is read back by get, list and retainedForPath; a receipt without one has none', async () => {
      const store = await open();
      const t = Date.now();
      await store.receipts.record(receipt('f1', t, { failure: TRANSFORM, retainedUntil: t + 60_000 }), payload('f1', t + 60_000));
      await store.receipts.record(receipt('f2', t + 1, { failure: SCHEMA, status: 400, errorCode: 'HERALD_SCHEMA_MISMATCH' }));
      await store.receipts.record(receipt('ok', t + 2, { status: 202, outcome: 'agent', errorCode: null }));
      expect((await store.receipts.get('f1'))?.failure).toEqual(TRANSFORM);
      expect((await store.receipts.get('f2'))?.failure).toEqual(SCHEMA);
      expect((await store.receipts.get('ok'))?.failure ?? null).toBeNull();
      const listed = await store.receipts.list({ limit: 10, result: 'error' });
      expect(listed.map((r) => [r.id, r.failure?.stage])).toEqual([['f2', 'schema'], ['f1', 'transform']]);
      // a refused request (no mapping failed) is an error, not a failed mapping
      await store.receipts.record(receipt('refused', t + 3, { status: 401, outcome: 'error', errorCode: 'HERALD_UNAUTHORIZED', mappingId: null }));
      expect((await store.receipts.list({ limit: 10, failed: true })).map((r) => r.id)).toEqual(['f2', 'f1']);
      expect((await store.receipts.list({ limit: 10, failed: true, mappingId: 'orders', q: 'f1' })).map((r) => r.id)).toEqual(['f1']);
      expect((await store.receipts.list({ limit: 10, result: 'error' })).map((r) => r.id)).toEqual(['refused', 'f2', 'f1']);
      const kept = await store.receipts.retainedForPath('orders', 10, t);
      expect(kept.map((k) => [k.receipt.id, k.receipt.failure])).toEqual([['f1', TRANSFORM]]);
      // another handle (another replica) reads the same
      const other = await open(store);
      expect((await other.receipts.get('f1'))?.failure).toEqual(TRANSFORM);
    });

    it("a forEach mapping's failed items are read back with the failure, in order", async () => {
      const store = await open();
      const t = Date.now();
      const items = [
        { index: 1, stage: 'transform', cause: 'Error: amount ‹value› is not a number', at: 'orders.mjs:7' },
        { index: 4, stage: 'dispatch', cause: 'rate limited' },
      ];
      const partial = { ...TRANSFORM, cause: '2 of 5 items failed; item 1: Error: amount ‹value› is not a number', items };
      await store.receipts.record(receipt('p1', t, { failure: partial, retainedUntil: t + 60_000 }), payload('p1', t + 60_000));
      expect((await store.receipts.get('p1'))?.failure).toEqual(partial);
      expect((await store.receipts.list({ limit: 10, failed: true })).map((r) => r.failure)).toEqual([partial]);
    });

    it("a failed request's payload expires with the retention; its failure stays on the receipt", async () => {
      const store = await open();
      const t = Date.now();
      await store.receipts.record(receipt('e1', t, { failure: TRANSFORM, retainedUntil: t + 1000 }), payload('e1', t + 1000));
      await store.receipts.record(receipt('e2', t + 1, { failure: SCHEMA, retainedUntil: t + 60_000 }), payload('e2', t + 60_000));
      expect(await store.receipts.payload('e1', t)).toBeDefined();
      const removed = await store.receipts.prune({ now: t + 1000, maxTotalBytes: 1_000_000, receiptsBefore: 0 });
      expect(removed.payloads).toBe(1);
      expect(await store.receipts.payload('e1', t + 1000)).toBeUndefined();
      const expired = await store.receipts.get('e1');
      expect(expired?.retainedUntil).toBeNull();
      expect(expired?.failure).toEqual(TRANSFORM);
      expect(await store.receipts.payload('e2', t + 1000)).toBeDefined();
      // and the total cap holds for them as for every retained payload
      await store.receipts.prune({ now: t + 1000, maxTotalBytes: 1, receiptsBefore: 0 });
      expect(await store.receipts.payload('e2', t + 1000)).toBeUndefined();
      expect((await store.receipts.get('e2'))?.failure).toEqual(SCHEMA);
    });
  });
}
