import { describe, expect, it } from 'vitest';
import type { OpenStore } from './open-store-under-test.js';
import { queuedRun } from './run-record.js';

/** a queued run in a session that already has one: it waits behind it */
const inBusy = (id: string) => ({ ...queuedRun(id), sessionKey: 'hook:busy' });

/** what /readyz and /metrics ask of the store */
export function probeCases(open: OpenStore) {
  describe('probe', () => {
    it('answers a ping and counts unfinished runs, pending events and deliveries by status', async () => {
      const store = await open();
      await store.probe.ping();
      expect(await store.probe.counts()).toEqual({
        runs: { queued: 0, running: 0, waitingApproval: 0 }, eventsPending: 0, eventsDropped: 0, deliveries: { pending: 0, sending: 0, delivered: 0, failed: 0, abandoned: 0 }, knowledgeDocuments: 0, knowledgeChunks: 0,
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

    it('counts the runs of one batch, a claim of several, a renewal, a release, a cancel and a completion', async () => {
      const store = await open();
      await Promise.all(['r1', 'r2', 'r3', 'r4', 'r5'].map((id, i) => store.runs.insert(queuedRun(id, i + 1))));
      expect((await store.probe.counts()).runs).toEqual({ queued: 5, running: 0, waitingApproval: 0 });
      const lease = { owner: 'a', now: 10, until: Date.now() + 60_000 };
      const claimed = await store.runs.claim(lease, 3);
      expect(claimed).toHaveLength(3);
      expect((await store.probe.counts()).runs).toEqual({ queued: 2, running: 3, waitingApproval: 0 });
      // a renewal changes no status: nothing counted
      await store.runs.renew(claimed.map((r) => r.id), 'a', Date.now() + 120_000);
      expect((await store.probe.counts()).runs).toEqual({ queued: 2, running: 3, waitingApproval: 0 });
      await store.runs.release([claimed[2]!.id], 'a');
      expect((await store.probe.counts()).runs).toEqual({ queued: 3, running: 2, waitingApproval: 0 });
      expect(await store.runs.cancel('r5', Date.now())).toBe(true);
      expect((await store.probe.counts()).runs).toEqual({ queued: 2, running: 2, waitingApproval: 0 });
      const transcript = [{ role: 'user' as const, content: 'm', createdAt: 1, runId: claimed[0]!.id }];
      expect(await store.runs.complete(claimed[0]!.id, { status: 'succeeded', reply: 'ok', at: Date.now(), transcript, summary: { session: 'main', text: 'done', maxPending: 20 } })).toBe(true);
      expect((await store.probe.counts()).runs).toEqual({ queued: 2, running: 1, waitingApproval: 0 });
    });

    it('counts completions sent together with the claims after them (a running run, one given back to the queue, one refused, an expired lease taken again) and their summaries, repeated and past the cap', async () => {
      const store = await open();
      await Promise.all(['r1', 'r2', 'r3', 'r4', 'r5', 'r6'].map((id, i) => store.runs.insert(queuedRun(id, i + 1))));
      await store.runs.insert(inBusy('b1'));
      await store.runs.insert(inBusy('b2'));
      // r1 under a lease that has run out: the next claim takes it again, running as before
      await store.runs.claim({ owner: 'dead', now: 1, until: 2 }, 1);
      const lease = { owner: 'a', now: 10, until: Date.now() + 60_000 };
      expect((await store.runs.claim(lease, 3)).map((r) => r.id)).toEqual(['r1', 'r2', 'r3']);
      expect((await store.probe.counts()).runs).toEqual({ queued: 5, running: 3, waitingApproval: 0 });
      await store.runs.release(['r3'], 'a');
      expect((await store.probe.counts()).runs).toEqual({ queued: 6, running: 2, waitingApproval: 0 });
      const done = (id: string) => ({
        status: 'succeeded' as const, reply: 'ok', at: Date.now(), transcript: [{ role: 'user' as const, content: 'm', createdAt: 1, runId: id }],
        summary: { session: 'main', text: `done ${id}`, maxPending: 20 },
      });
      // r2 running, r3 back in the queue, r9 unknown: two completed, each claiming one next run (r4, r5)
      const [r2, r3, r9] = await Promise.all(['r2', 'r3', 'r9'].map((id) => store.runs.completeAndClaimNext(id, done(id), lease)));
      expect([r2!.finished, r3!.finished, r9!.finished]).toEqual([true, true, false]);
      const claimedAfter = [r2, r3].flatMap((r) => (r!.finished && r!.claimed ? r!.claimed.map((c) => c.id) : []));
      expect(claimedAfter.sort()).toEqual(['r4', 'r5']);
      // r1, r4, r5 running; r6, b1 queued (b2 waits behind b1, queued too); each completion's summary pending
      expect(await store.probe.counts()).toMatchObject({ runs: { queued: 3, running: 3 }, eventsPending: 2, eventsDropped: 0 });
      await store.runs.completeAndClaimNext('r1', done('r1'), lease);
      expect(await store.probe.counts()).toMatchObject({ runs: { queued: 2, running: 3 }, eventsPending: 3, eventsDropped: 0 });
      // a summary repeating the newest pending one is not added; past the queue's cap the oldest are dropped
      const capped = (id: string, text: string) => ({ ...done(id), summary: { session: 'main', text, maxPending: 2 } });
      await Promise.all([store.runs.completeAndClaimNext('r4', capped('r4', 'same'), lease), store.runs.completeAndClaimNext('r5', capped('r5', 'same'), lease)]);
      expect(await store.probe.counts()).toMatchObject({ eventsPending: 2, eventsDropped: 2 });
    });

    it('counts the enqueues of one turn and the drops they cause, written together, and a claim and completion of several', async () => {
      const store = await open();
      await Promise.all(['a', 'b', 'c', 'd', 'e'].map((text) => store.events.enqueue('main', text, 2)));
      expect(await store.probe.counts()).toMatchObject({ eventsPending: 2, eventsDropped: 3 });
      await Promise.all(['f', 'g', 'h'].map((text) => store.events.enqueue('main', text, 2)));
      expect(await store.probe.counts()).toMatchObject({ eventsPending: 2, eventsDropped: 6 });
      const lease = { owner: 'a', now: 1, until: Date.now() + 60_000 };
      const claimed = await store.events.claimPending('main', lease, 20);
      expect(claimed).toHaveLength(2);
      expect(await store.probe.counts()).toMatchObject({ eventsPending: 0, eventsDropped: 6 });
      await store.events.renew(claimed.map((e) => e.id), 'a', Date.now() + 120_000);
      expect(await store.probe.counts()).toMatchObject({ eventsPending: 0, eventsDropped: 6 });
      await store.events.complete(claimed.map((e) => e.id));
      expect(await store.probe.counts()).toMatchObject({ eventsPending: 0, eventsDropped: 6 });
    });

    it('keeps every count exact through enqueue, claim, finish, requeue, cancel and removal, and across a restart', async () => {
      const first = await open();
      const summary = { session: 'main', text: 'done', maxPending: 20 };
      for (const id of ['a1', 'a2', 'a3']) await first.runs.insert(inBusy(id));
      await first.runs.insert(queuedRun('solo'));
      // claimed already at insert (a fresh session on a free slot)
      await first.runs.insert(queuedRun('fresh'), { owner: 'a', now: 1, until: Date.now() + 60_000 });
      expect((await first.probe.counts()).runs).toEqual({ queued: 4, running: 1, waitingApproval: 0 });
      const lease = { owner: 'a', now: 2, until: Date.now() + 60_000 };
      expect((await first.runs.claim(lease, 10)).map((r) => r.id)).toEqual(['a1', 'solo']);
      expect((await first.probe.counts()).runs).toEqual({ queued: 2, running: 3, waitingApproval: 0 });
      await first.runs.release(['solo'], 'a');
      expect((await first.probe.counts()).runs).toEqual({ queued: 3, running: 2, waitingApproval: 0 });
      await first.runs.complete('a1', { status: 'succeeded', reply: 'ok', at: 3, transcript: [], summary });
      await first.runs.complete('a1', { status: 'failed', error: 'twice', at: 4, transcript: [], summary });
      expect(await first.runs.cancel('a3', 5)).toBe(true);
      expect((await first.probe.counts()).runs).toEqual({ queued: 2, running: 1, waitingApproval: 0 });

      // events: a summary is pending; claimed, given back, claimed again and done; the cap drops
      expect((await first.probe.counts()).eventsPending).toBe(1);
      const [event] = await first.events.claimPending('main', lease, 20);
      expect((await first.probe.counts()).eventsPending).toBe(0);
      await first.events.release([event!.id], 'a');
      expect((await first.probe.counts()).eventsPending).toBe(1);
      await first.events.complete((await first.events.claimPending('main', lease, 20)).map((e) => e.id));
      for (const text of ['x', 'y', 'z']) await first.events.enqueue('main', text, 1);
      expect(await first.probe.counts()).toMatchObject({ eventsPending: 1, eventsDropped: 2 });

      // deliveries through their states
      const now = Date.now();
      const delivery = (id: string) => ({
        id, runId: null, kind: 'heartbeat' as const, channel: 'telegram', to: '1', text: 'hi', sessionKey: 'main', agentId: 'main', status: 'pending' as const,
        attempts: 0, partsSent: 0, lastError: null, nextAttemptAt: now - 1, leaseOwner: null, leaseUntil: null, createdAt: now, updatedAt: now, deliveredAt: null,
      });
      for (const id of ['d1', 'd2', 'd3']) await first.deliveries.insert(delivery(id));
      await first.deliveries.claim('d1', 'a', now, now + 60_000);
      await first.deliveries.claim('d2', 'a', now, now + 60_000);
      expect((await first.probe.counts()).deliveries).toEqual({ pending: 1, sending: 2, delivered: 0, failed: 0, abandoned: 0 });
      await first.deliveries.delivered('d1', 'a', now);
      await first.deliveries.failed('d2', 'a', 'no', now);
      await first.deliveries.abandon('d3', now);
      expect((await first.probe.counts()).deliveries).toEqual({ pending: 0, sending: 0, delivered: 1, failed: 1, abandoned: 1 });
      await first.deliveries.requeue('d2', now);
      expect((await first.probe.counts()).deliveries).toEqual({ pending: 1, sending: 0, delivered: 1, failed: 0, abandoned: 1 });

      // knowledge: added, added again (the same content: nothing new), removed with its chunks
      const chunks = (...texts: string[]) => texts.map((content) => ({ content, terms: content }));
      const doc = (sha: string) => ({ agentId: 'main', filename: 'f.txt', bytes: 2, mimeType: 'text/plain', sha256: sha.repeat(64), metadata: null });
      const { document } = await first.knowledge.add(doc('a'), chunks('one', 'two', 'three'));
      await first.knowledge.add(doc('a'), chunks('one', 'two', 'three'));
      await first.knowledge.add(doc('b'), chunks('four'));
      expect(await first.probe.counts()).toMatchObject({ knowledgeDocuments: 2, knowledgeChunks: 4 });
      await first.knowledge.delete(document.id);
      const expected = {
        runs: { queued: 2, running: 1, waitingApproval: 0 }, eventsPending: 1, eventsDropped: 2,
        deliveries: { pending: 1, sending: 0, delivered: 1, failed: 0, abandoned: 1 }, knowledgeDocuments: 1, knowledgeChunks: 1,
      };
      expect(await first.probe.counts()).toEqual(expected);
      await first.close();
      expect(await (await open(first)).probe.counts()).toEqual(expected);
    });

    it('fails a ping once closed', async () => {
      const store = await open();
      await store.close();
      await expect(store.probe.ping()).rejects.toThrow();
    });
  });
}
