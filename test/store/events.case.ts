import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/port.js';
import type { OpenStore } from './open-store-under-test.js';
import { queuedRun } from './run-record.js';

/**
 * Writes pending events straight into a store's table, in the order given, as writers racing the
 * enqueue could leave them (each missing the other's uncommitted rows): past the dedupe and the cap.
 */
export type RacedEvents = (store: Store, session: string, texts: string[]) => Promise<void>;

/** the main session's durable event queue: dedupe against the previous event, a cap on pending */
export function eventsCases(open: OpenStore, raced: RacedEvents) {
  describe('events', () => {
    it('dedupes against the previous pending event, caps pending, claims and completes', async () => {
      const { events } = await open();
      expect(await events.enqueue('main', 'a', 3)).toMatchObject({ text: 'a', status: 'pending' });
      expect(await events.enqueue('main', 'a', 3)).toBeUndefined();
      await events.enqueue('other', 'a', 3); // sessions are separate queues
      await events.enqueue('main', 'b', 3);
      await events.enqueue('main', 'c', 3);
      await events.enqueue('main', 'd', 3);
      expect(await events.countPending('main')).toBe(3);
      expect((await events.list('main', 10)).map((e) => `${e.text}:${e.status}`)).toEqual(['d:pending', 'c:pending', 'b:pending', 'a:dropped']);

      const lease = (owner: string, now = 100) => ({ owner, now, until: now + 1000 });
      const claimed = await events.claimPending('main', lease('a'), 3);
      expect(claimed.map((e) => e.text)).toEqual(['b', 'c', 'd']);
      // claimed under a live lease: nobody else gets them
      expect(await events.claimPending('main', lease('b', 200), 3)).toEqual([]);
      // while the heartbeat is looking at it, a repeat is still a repeat
      expect(await events.enqueue('main', 'd', 3)).toBeUndefined();
      await events.release(claimed.map((e) => e.id), 'someone else');
      expect(await events.countPending('main')).toBe(0);
      await events.release(claimed.map((e) => e.id), 'a');
      expect(await events.countPending('main')).toBe(3);
      const taken = await events.claimPending('main', lease('b', 300), 3);
      // b died mid-turn: once its lease ran out, c takes the events
      const again = await events.claimPending('main', lease('c', 300 + 1001), 3);
      expect(again.map((e) => e.id)).toEqual(taken.map((e) => e.id));
      await events.complete(again.map((e) => e.id));
      expect(await events.countPending('main')).toBe(0);
      // handled: the same text is news again
      expect(await events.enqueue('main', 'd', 3)).toMatchObject({ text: 'd', status: 'pending' });
    });

    it('events asked for at once are written in the order asked, each a repeat or not of the one written before it', async () => {
      const { events } = await open();
      await events.enqueue('main', 'w', 3);
      const added = await Promise.all(['w', 'x', 'x', 'y', 'x', 'z', 'z'].map((text) => events.enqueue('main', text, 3)));
      expect(added.map((e) => e?.text)).toEqual([undefined, 'x', undefined, 'y', 'x', 'z', undefined]);
      const ids = added.flatMap((e) => (e ? [e.id] : []));
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      const listed = await events.list('main', 10);
      expect(listed.map((e) => `${e.text}:${e.status}`)).toEqual(['z:pending', 'x:pending', 'y:pending', 'x:dropped', 'w:dropped']);
      // what enqueue answers is the row as written
      for (const e of added) if (e) expect(listed.find((l) => l.id === e.id)).toMatchObject({ ...e, status: expect.any(String) });
      expect(added[1]).toMatchObject({ session: 'main', status: 'pending', untrusted: false });
    });

    it('keeps the cap of 20 and the dedupe when many events arrive at once', async () => {
      const store = await open();
      const texts = Array.from({ length: 25 }, (_, i) => `event ${i}`);
      await Promise.all(texts.map((text) => store.events.enqueue('main', text, 20)));
      // concurrent writers may commit in any order; what holds is the cap and the dedupe
      const events = await store.events.list('main', 100);
      const pending = events.filter((e) => e.status === 'pending');
      expect(pending).toHaveLength(20);
      expect(new Set(pending.map((e) => e.text)).size).toBe(20);
      expect(events.filter((e) => e.status === 'dropped')).toHaveLength(5);
      // the oldest are the ones dropped
      expect(Math.min(...pending.map((e) => e.id))).toBeGreaterThan(Math.max(...events.filter((e) => e.status === 'dropped').map((e) => e.id)));
      expect(await store.events.enqueue('main', pending[0]!.text, 20)).toBeUndefined();
      expect(await store.events.countPending('main')).toBe(20);
    });

    it('keeps the cap of 20 when two processes add events to one session: the heartbeat gets the newest 20', async () => {
      const a = await open();
      const b = await open(a);
      await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).events.enqueue('main', `event ${i}`, 20)));
      // each process's enqueue drops against what the other had committed: with PostgreSQL the two
      // may race and leave more than 20 pending, which the claim then drops
      expect(await a.events.countPending('main')).toBeGreaterThanOrEqual(20);
      const claimed = await b.events.claimPending('main', { owner: 'hb', now: 1, until: 1000 }, 20);
      expect(claimed).toHaveLength(20);
      const dropped = (await b.events.list('main', 100)).filter((e) => e.status === 'dropped');
      expect(dropped).toHaveLength(10);
      expect(Math.min(...claimed.map((e) => e.id))).toBeGreaterThan(Math.max(...dropped.map((e) => e.id)));
      expect(await a.events.countPending('main')).toBe(0);
    });

    it('the claim keeps the rules for events that got in past the enqueue: no repeat of the one before, the newest maxPending', async () => {
      const store = await open();
      await store.events.enqueue('main', 'a', 3);
      await raced(store, 'main', ['a', 'b', 'b', 'c', 'a', 'd']);
      expect(await store.events.countPending('main')).toBe(7);
      const claimed = await store.events.claimPending('main', { owner: 'hb', now: 1, until: 1000 }, 3);
      // the repeats (the second a, the second b) are dropped; of a, b, c, a, d the newest three are taken
      expect(claimed.map((e) => e.text)).toEqual(['c', 'a', 'd']);
      expect((await store.events.list('main', 10)).map((e) => `${e.text}:${e.status}`)).toEqual([
        'd:processing', 'a:processing', 'c:processing', 'b:dropped', 'b:dropped', 'a:dropped', 'a:dropped',
      ]);
      expect(await store.events.countPending('main')).toBe(0);
      // what the claim dropped is never claimed
      expect(await store.events.claimPending('main', { owner: 'hb2', now: 2000, until: 3000 }, 3)).toEqual(claimed);
    });

    it("stores a run summary's untrusted flag with its event, read back after a restart, in the list, the claim and the browse", async () => {
      const first = await open();
      expect(await first.events.enqueue('main', 'a wake', 20)).toMatchObject({ untrusted: false });
      await first.runs.insert(queuedRun('outside', 1));
      await first.runs.insert(queuedRun('inside', 2));
      const done = (text: string, untrusted?: boolean) => ({ status: 'succeeded' as const, reply: 'done', at: 10, transcript: [], summary: { session: 'main', text, maxPending: 20, ...(untrusted !== undefined && { untrusted }) } });
      expect(await first.runs.complete('outside', done('Hook Mail: done', true))).toBe(true);
      expect(await first.runs.complete('inside', done('Hook Cron: done'))).toBe(true);
      await first.close();

      const store = await open(first);
      const flags = (events: { text: string; untrusted: boolean }[]) => Object.fromEntries(events.map((e) => [e.text, e.untrusted]));
      const expected = { 'a wake': false, 'Hook Mail: done': true, 'Hook Cron: done': false };
      expect(flags(await store.events.list('main', 10))).toEqual(expected);
      expect(flags(await store.browse.events({ session: 'main', limit: 10 }))).toEqual(expected);
      expect(flags(await store.events.claimPending('main', { owner: 'hb', now: 20, until: 1000 }, 20))).toEqual(expected);
    });

    it('keeps an event asked for beside a write that fails, once, with the cap and the repeat check as if the failure had not been', async () => {
      const store = await open();
      await store.runs.insert(queuedRun('taken'));
      for (let i = 0; i < 20; i++) await store.events.enqueue('main', `event ${i}`, 20);
      // asked for in one turn: on SQLite one group commit, which runs again when a write of it fails
      const [added, duplicate] = await Promise.allSettled([store.events.enqueue('main', 'news', 20), store.runs.insert(queuedRun('taken'))]);
      expect(added).toMatchObject({ status: 'fulfilled', value: { text: 'news', status: 'pending' } });
      expect(duplicate.status).toBe('rejected');
      expect(await store.events.enqueue('main', 'news', 20)).toBeUndefined();
      expect(await store.events.enqueue('main', 'more news', 20)).toMatchObject({ text: 'more news' });
      const listed = await store.events.list('main', 100);
      expect(listed.filter((e) => e.text === 'news')).toHaveLength(1);
      expect(listed.filter((e) => e.status === 'dropped').map((e) => e.text)).toEqual(['event 1', 'event 0']);
      expect(await store.events.countPending('main')).toBe(20);
      expect(await store.probe.counts()).toMatchObject({ eventsPending: 20, eventsDropped: 2 });
    });

    it('stores nothing of a wake whose completion fails after its event: the same text is news at the next one', async () => {
      const store = await open();
      await store.events.enqueue('main', 'before', 20);
      const failing = (text: string) =>
        store.idempotency.completeWithEvent('wake', 'k', () => {
          throw new Error('no answer');
        }, { session: 'main', text, maxPending: 20 });
      await expect(failing('deploy done')).rejects.toThrow('no answer');
      expect((await store.events.list('main', 10)).map((e) => e.text)).toEqual(['before']);
      expect(await store.events.enqueue('main', 'deploy done', 20)).toMatchObject({ text: 'deploy done' });
      // the same again, beside the next wake in the same turn (on SQLite one group commit)
      const [failed, next] = await Promise.allSettled([failing('deploy failed'), store.events.enqueue('main', 'deploy failed', 20)]);
      expect(failed.status).toBe('rejected');
      expect(next).toMatchObject({ status: 'fulfilled', value: { text: 'deploy failed' } });
      expect((await store.events.list('main', 10)).map((e) => e.text)).toEqual(['deploy failed', 'deploy done', 'before']);
      expect(await store.probe.counts()).toMatchObject({ eventsPending: 3, eventsDropped: 0 });
    });

    it('sees what another process did to the queue: a repeat while it is claimed, news once done, the cap over both', async () => {
      const a = await open();
      const b = await open(a);
      await a.events.enqueue('main', 'x', 3);
      const claimed = await b.events.claimPending('main', { owner: 'hb', now: 1, until: Date.now() + 60_000 }, 3);
      expect(claimed.map((e) => e.text)).toEqual(['x']);
      expect(await a.events.enqueue('main', 'x', 3)).toBeUndefined();
      await b.events.complete(claimed.map((e) => e.id));
      expect(await a.events.enqueue('main', 'x', 3)).toMatchObject({ text: 'x', status: 'pending' });
      expect(await b.events.enqueue('main', 'x', 3)).toBeUndefined();
      await b.events.enqueue('main', 'y', 3);
      await a.events.enqueue('main', 'z', 3);
      await b.events.enqueue('main', 'w', 3);
      expect((await a.events.list('main', 10)).map((e) => `${e.text}:${e.status}`)).toEqual(['w:pending', 'z:pending', 'y:pending', 'x:dropped', 'x:done']);
    });

    it('keeps the repeat check and the cap across a restart', async () => {
      const first = await open();
      for (let i = 0; i < 3; i++) await first.events.enqueue('main', `event ${i}`, 3);
      await first.close();
      const store = await open(first);
      expect(await store.events.enqueue('main', 'event 2', 3)).toBeUndefined();
      await store.events.enqueue('main', 'event 3', 3);
      expect((await store.events.list('main', 10)).map((e) => `${e.text}:${e.status}`)).toEqual(['event 3:pending', 'event 2:pending', 'event 1:pending', 'event 0:dropped']);
    });

    it('gives every processing event back at once, whoever claimed it, long before its lease runs out', async () => {
      const first = await open();
      for (let i = 0; i < 3; i++) await first.events.enqueue('main', `event ${i}`, 20);
      const now = Date.now();
      expect(await first.events.claimPending('main', { owner: 'dead', now, until: now + 3_600_000 }, 20)).toHaveLength(3);
      await first.events.enqueue('main', 'event 3', 20);
      await first.close();
      const store = await open(first);
      expect(await store.events.countPending('main')).toBe(1);
      expect(await store.events.requeueProcessing()).toBe(3);
      expect(await store.events.countPending('main')).toBe(4);
      const taken = await store.events.claimPending('main', { owner: 'next', now: now + 1, until: now + 60_000 }, 20);
      expect(taken.map((e) => e.text)).toEqual(['event 0', 'event 1', 'event 2', 'event 3']);
      expect(await store.events.requeueProcessing()).toBe(4);
    });
  });
}
