import { describe, expect, it } from 'vitest';
import type { DeliveryRecord } from '../../src/store/port.js';
import type { OpenStore } from './open-store-under-test.js';
import { queuedRun } from './run-record.js';

function pending(id: string, now: number): DeliveryRecord {
  return {
    id, runId: 'run-1', kind: 'run', channel: 'telegram', to: '555', text: 'hi', sessionKey: 'hook:x', agentId: 'main',
    status: 'pending', attempts: 0, partsSent: 0, lastError: null, nextAttemptAt: now, leaseOwner: null, leaseUntil: null,
    createdAt: now, updatedAt: now, deliveredAt: null,
  };
}

/** the durable outbox: one delivery per run, claims with leases, every change after a claim conditional on the lease */
export function deliveriesCases(open: OpenStore) {
  /** two handles on one database: two herald processes sharing a store */
  const twoWorkers = async () => {
    const a = await open();
    return [a, await open(a)] as const;
  };

  describe('deliveries', () => {
    it('gives a due delivery to exactly one of two workers', async () => {
      const [a, b] = await twoWorkers();
      const now = Date.now();
      await a.deliveries.insert(pending('d1', now));
      const [first, second] = await Promise.all([a.deliveries.claim('d1', 'worker-a', now, now + 60_000), b.deliveries.claim('d1', 'worker-b', now, now + 60_000)]);
      expect([first, second].filter(Boolean)).toHaveLength(1);
      expect(first ?? second).toMatchObject({ status: 'sending', attempts: 1, leaseUntil: now + 60_000 });
      expect(await b.deliveries.due(now + 1, 10)).toEqual([]);
    });

    it("retakes a crashed worker's claim once its lease expired; the old worker can no longer finish it", async () => {
      const [a, b] = await twoWorkers();
      const now = Date.now();
      await a.deliveries.insert(pending('d1', now));
      await a.deliveries.claim('d1', 'worker-a', now, now + 1000);
      expect(await b.deliveries.claim('d1', 'worker-b', now + 500, now + 2000)).toBeUndefined();
      expect(await b.deliveries.nextDueAt()).toBe(now + 1000);
      expect(await b.deliveries.due(now + 1001, 10)).toEqual(['d1']);
      const retaken = await b.deliveries.claim('d1', 'worker-b', now + 1001, now + 5000);
      expect(retaken).toMatchObject({ leaseOwner: 'worker-b', attempts: 2 });
      expect(await a.deliveries.partSent('d1', 'worker-a', 1, now + 5000)).toBe(false);
      expect(await a.deliveries.delivered('d1', 'worker-a', now + 1002)).toBe(false);
      expect(await b.deliveries.partSent('d1', 'worker-b', 1, now + 5000)).toBe(true);
      expect(await b.deliveries.delivered('d1', 'worker-b', now + 1003)).toBe(true);
      expect(await a.deliveries.get('d1')).toMatchObject({ status: 'delivered', deliveredAt: now + 1003, leaseOwner: null, partsSent: 1 });
    });

    it('renews the claim with each accepted part, so a long reply in many parts keeps its worker', async () => {
      const [a, b] = await twoWorkers();
      const now = Date.now();
      await a.deliveries.insert(pending('d1', now));
      await a.deliveries.claim('d1', 'worker-a', now, now + 1000);
      expect(await a.deliveries.partSent('d1', 'worker-a', 1, now + 60_000)).toBe(true);
      // past the first lease, the claim still holds: nobody else may take it
      expect(await b.deliveries.due(now + 5000, 10)).toEqual([]);
      expect(await b.deliveries.claim('d1', 'worker-b', now + 5000, now + 65_000)).toBeUndefined();
      // a renewal never shortens a claim
      await a.deliveries.partSent('d1', 'worker-a', 2, now + 10);
      expect((await a.deliveries.get('d1'))!.leaseUntil).toBe(now + 60_000);
    });

    it('does not claim a pending delivery before its next attempt is due', async () => {
      const [a] = await twoWorkers();
      const now = Date.now();
      await a.deliveries.insert({ ...pending('d1', now), nextAttemptAt: now + 1000 });
      expect(await a.deliveries.claim('d1', 'w', now, now + 60_000)).toBeUndefined();
      expect(await a.deliveries.nextDueAt()).toBe(now + 1000);
    });

    it('retries, fails, requeues and releases only under the lease', async () => {
      const [a] = await twoWorkers();
      const now = Date.now();
      await a.deliveries.insert(pending('d1', now));
      await a.deliveries.claim('d1', 'w', now, now + 1000);
      expect(await a.deliveries.retryAt('d1', 'other', now + 10, 'x')).toBe(false);
      expect(await a.deliveries.retryAt('d1', 'w', now + 10, '503 from the platform')).toBe(true);
      expect(await a.deliveries.get('d1')).toMatchObject({ status: 'pending', nextAttemptAt: now + 10, lastError: '503 from the platform', leaseOwner: null });
      await a.deliveries.claim('d1', 'w', now + 10, now + 1000);
      await a.deliveries.release('d1', 'w', now + 11);
      expect(await a.deliveries.get('d1')).toMatchObject({ status: 'pending', attempts: 1 });
      await a.deliveries.claim('d1', 'w', now + 11, now + 1000);
      expect(await a.deliveries.failed('d1', 'w', 'gave up', now + 12)).toBe(true);
      expect(await a.deliveries.list({ status: 'failed', limit: 10 })).toMatchObject([{ id: 'd1', lastError: 'gave up' }]);
      expect(await a.deliveries.requeue('d1', now + 20)).toBe(true);
      expect(await a.deliveries.requeue('d1', now + 20)).toBe(false);
      expect(await a.deliveries.get('d1')).toMatchObject({ status: 'pending', attempts: 0, nextAttemptAt: now + 20 });
    });

    it('adds one delivery per run, even when two workers race on it; heartbeat replies always', async () => {
      const [a, b] = await twoWorkers();
      const now = Date.now();
      const results = await Promise.all([a.deliveries.insert(pending('d1', now)), b.deliveries.insert(pending('d2', now))]);
      expect(results.sort()).toEqual([false, true]);
      expect(await a.deliveries.forRun('run-1')).toHaveLength(1);
      const heartbeat = (id: string) => ({ ...pending(id, now), runId: null, kind: 'heartbeat' as const });
      expect(await a.deliveries.insert(heartbeat('h1'))).toBe(true);
      expect(await a.deliveries.insert(heartbeat('h2'))).toBe(true);
    });

    it('finds succeeded runs that asked for delivery and have none yet (deliver: false never)', async () => {
      const store = await open();
      const finish = (id: string) => store.runs.complete(id, { status: 'succeeded', reply: 'ok', at: 100, transcript: [], summary: { session: 'main', text: `Hook ${id}: ok`, maxPending: 20 } });
      await store.runs.insert(queuedRun('wants', 1, { deliver: true }));
      await store.runs.insert(queuedRun('quiet', 2, { deliver: false }));
      await store.runs.insert(queuedRun('done', 3, { deliver: true }));
      await store.runs.insert(queuedRun('queued', 4, { deliver: true }));
      for (const id of ['wants', 'quiet', 'done']) await finish(id);
      await store.deliveries.insert({ ...pending('d-done', 100), runId: 'done' });
      expect(await store.deliveries.runsAwaitingDelivery(0)).toEqual(['wants']);
      expect(await store.deliveries.runsAwaitingDelivery(101)).toEqual([]);
    });

    it('adds one fallback per failed delivery, beside the run\'s first delivery', async () => {
      const [a, b] = await twoWorkers();
      const now = Date.now();
      await a.deliveries.insert(pending('d1', now));
      const fallback = (id: string) => ({ ...pending(id, now + 1), channel: 'slack', fallbackOf: 'd1' });
      const results = await Promise.all([a.deliveries.insert(fallback('f1')), b.deliveries.insert(fallback('f2'))]);
      expect(results.sort()).toEqual([false, true]);
      const chain = await a.deliveries.forRun('run-1');
      expect(chain.map((d) => [d.id, d.fallbackOf])).toEqual([['d1', null], [results[0] ? 'f1' : chain[1]!.id, 'd1']]);
      // the run's first delivery is still the only one of its kind
      expect(await a.deliveries.insert(pending('d3', now))).toBe(false);
    });

    it('fails a delivery and adds its fallback in one write, only under the lease', async () => {
      const [a, b] = await twoWorkers();
      const now = Date.now();
      await a.deliveries.insert(pending('d1', now));
      await a.deliveries.claim('d1', 'worker-a', now, now + 60_000);
      const fallback = { ...pending('f1', now + 1), channel: 'slack', fallbackOf: 'd1' };
      // a worker that lost the lease neither fails it nor adds the fallback
      expect(await b.deliveries.failed('d1', 'worker-b', 'telegram 403: Forbidden', now + 2, fallback)).toBe(false);
      expect(await a.deliveries.get('f1')).toBeUndefined();
      expect(await a.deliveries.failed('d1', 'worker-a', 'telegram 403: Forbidden', now + 2, fallback)).toBe(true);
      expect(await b.deliveries.get('d1')).toMatchObject({ status: 'failed', lastError: 'telegram 403: Forbidden' });
      expect(await b.deliveries.get('f1')).toMatchObject({ status: 'pending', channel: 'slack', fallbackOf: 'd1', runId: 'run-1' });
      expect(await b.deliveries.due(now + 2, 10)).toEqual(['f1']);
    });

    it('counts, retries and abandons the failed deliveries a filter matches, once across two workers', async () => {
      const [a, b] = await twoWorkers();
      const now = Date.now();
      const failed = (id: string, extra: Partial<DeliveryRecord>) => ({ ...pending(id, now), runId: null, kind: 'heartbeat' as const, status: 'failed' as const, ...extra });
      await a.deliveries.insert(failed('t1', { lastError: 'telegram 400: Bad Request: chat not found' }));
      await a.deliveries.insert(failed('t2', { lastError: 'telegram 400: Bad Request: chat not found', createdAt: now - 60_000 }));
      await a.deliveries.insert(failed('t3', { lastError: 'telegram 503 (gave up after 20 attempts)', to: null }));
      await a.deliveries.insert(failed('s1', { channel: 'slack', lastError: 'slack: channel_not_found' }));
      await a.deliveries.insert(failed('s2', { channel: 'slack', lastError: 'slack: channel_not_found' }));
      await a.deliveries.insert({ ...pending('s2-fallback', now), runId: null, kind: 'heartbeat', fallbackOf: 's2', status: 'delivered' });
      await a.deliveries.insert({ ...pending('p1', now), runId: null, kind: 'heartbeat' });
      const targets = { channels: ['telegram', 'slack'], recipientOptional: [] };

      expect(await a.deliveries.countFailed({})).toBe(5);
      expect(await a.deliveries.countFailed({ channel: 'telegram', error: 'CHAT NOT FOUND' })).toBe(2);
      expect(await a.deliveries.countFailed({ error: '100%_' })).toBe(0);
      expect(await a.deliveries.countFailed({ since: now - 1000 })).toBe(4);
      expect(await a.deliveries.countFailed({ until: now - 1000 })).toBe(1);
      // a retry skips what has no recipient (t3) and what a fallback replaced (s2)
      expect(await a.deliveries.countFailed({}, targets)).toBe(3);
      expect(await a.deliveries.countFailed({}, { channels: ['slack'], recipientOptional: [] })).toBe(1);

      const [first, second] = await Promise.all([a.deliveries.requeueFailed({ channel: 'telegram' }, targets, now + 5), b.deliveries.requeueFailed({ channel: 'telegram' }, targets, now + 5)]);
      expect(first + second).toBe(2);
      expect(await a.deliveries.get('t1')).toMatchObject({ status: 'pending', attempts: 0, nextAttemptAt: now + 5, retriedAt: now + 5 });
      expect(await a.deliveries.get('t3')).toMatchObject({ status: 'failed' });

      expect(await b.deliveries.abandonFailed({ channel: 'slack' }, now + 6)).toBe(2);
      expect(await a.deliveries.get('s1')).toMatchObject({ status: 'abandoned' });
      expect(await a.deliveries.get('p1')).toMatchObject({ status: 'pending' });
      expect(await a.deliveries.countFailed({})).toBe(1);
    });

    it('gives every sending delivery back, due at once, keeping its attempts and parts sent', async () => {
      const a = await open();
      const now = Date.now();
      await a.deliveries.insert(pending('d1', now));
      await a.deliveries.insert({ ...pending('d2', now), runId: 'run-2' });
      await a.deliveries.claim('d1', 'dead', now, now + 3_600_000);
      await a.deliveries.partSent('d1', 'dead', 1);
      await a.close();
      const b = await open(a);
      expect(await b.deliveries.due(now + 1, 10)).toEqual(['d2']);
      expect(await b.deliveries.requeueSending(now + 1)).toBe(1);
      expect(await b.deliveries.get('d1')).toMatchObject({ status: 'pending', attempts: 1, partsSent: 1, nextAttemptAt: now + 1, leaseOwner: null });
      expect((await b.deliveries.due(now + 1, 10)).sort()).toEqual(['d1', 'd2']);
    });

    describe("a recipient's one-reply credential (Discord's interaction token)", () => {
      const TOKEN = 'aW50ZXJhY3Rpb246MTIzNDU2Nzg5OkFCQw-secret';
      const interaction = (id: string, now: number, createdAt = now): DeliveryRecord => ({
        ...pending(id, now),
        runId: `run-${id}`,
        channel: 'discord',
        to: `interaction:1012345678901234567:1234567890123456789#token=${TOKEN}`,
        createdAt,
      });
      const SHOWN = 'interaction:1012345678901234567:1234567890123456789#token=…';

      it('is scrubbed by the write that makes the row final: delivered, failed, abandoned, bulk abandoned; kept while it may still be sent', async () => {
        const [a, b] = await twoWorkers();
        const now = Date.now();
        for (const id of ['ok', 'bad', 'gone', 'bulk', 'retry']) await a.deliveries.insert(interaction(id, now));
        await a.deliveries.claim('ok', 'w', now, now + 60_000);
        await a.deliveries.delivered('ok', 'w', now + 1);
        await a.deliveries.claim('bad', 'w', now, now + 60_000);
        await a.deliveries.failed('bad', 'w', 'discord: 404 Unknown Webhook', now + 1);
        await a.deliveries.abandon('gone', now + 1);
        await a.deliveries.failed('bulk', null, 'boom', now + 1);
        await a.deliveries.abandonFailed({ error: 'boom' }, now + 2);
        await a.deliveries.claim('retry', 'w', now, now + 60_000);
        await a.deliveries.retryAt('retry', 'w', now + 10, 'discord: 503');
        // read by the other handle: what is stored, not what a handle remembers
        for (const id of ['ok', 'bad', 'gone', 'bulk']) {
          const row = await b.deliveries.get(id);
          expect(row!.to).toBe(SHOWN);
          expect(JSON.stringify(row)).not.toContain(TOKEN);
        }
        expect((await b.deliveries.get('retry'))!.to).toContain(TOKEN);
        expect((await b.deliveries.list({ status: 'delivered', limit: 10 }))[0]!.to).toBe(SHOWN);
      });

      it('a failed one is not counted nor requeued by a bulk retry: nothing is left to send to', async () => {
        const a = await open();
        const now = Date.now();
        await a.deliveries.insert(interaction('i1', now));
        await a.deliveries.failed('i1', null, 'discord: 500', now + 1);
        await a.deliveries.insert({ ...pending('plain', now), runId: 'run-plain', channel: 'discord', to: '123456789012345678' });
        await a.deliveries.failed('plain', null, 'discord: 500', now + 1);
        const targets = { channels: ['discord'], recipientOptional: [] };
        expect(await a.deliveries.countFailed({}, targets)).toBe(1);
        expect(await a.deliveries.requeueFailed({}, targets, now + 2)).toBe(1);
        expect(await a.deliveries.get('i1')).toMatchObject({ status: 'failed', to: SHOWN });
      });

      it('expireCredentials fails the pending ones queued before the cutoff, scrubbed, and returns them; newer, sending and plain ones stay', async () => {
        const [a, b] = await twoWorkers();
        const now = Date.now();
        const old = now - 16 * 60_000;
        await a.deliveries.insert(interaction('old', now, old));
        await a.deliveries.insert(interaction('new', now));
        await a.deliveries.insert(interaction('busy', now, old));
        await a.deliveries.claim('busy', 'w', now, now + 60_000);
        await a.deliveries.insert({ ...pending('plain', now), runId: 'run-plain', createdAt: old });
        const expired = await a.deliveries.expireCredentials(now - 15 * 60_000, now, 'the interaction token expired');
        expect(expired.map((d) => d.id)).toEqual(['old']);
        expect(expired[0]).toMatchObject({ status: 'failed', lastError: 'the interaction token expired', to: SHOWN, updatedAt: now });
        expect(await b.deliveries.get('old')).toMatchObject({ status: 'failed', to: SHOWN });
        expect((await b.deliveries.get('new'))!.to).toContain(TOKEN);
        expect(await b.deliveries.get('busy')).toMatchObject({ status: 'sending' });
        expect(await b.deliveries.get('plain')).toMatchObject({ status: 'pending', to: '555' });
        expect(await a.deliveries.expireCredentials(now - 15 * 60_000, now, 'again')).toEqual([]);
      });
    });
  });
}
