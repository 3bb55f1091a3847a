import { describe, expect, it } from 'vitest';
import type { RunAdmission, Store } from '../../src/store/port.js';
import type { OpenStore } from './open-store-under-test.js';
import { queuedRun } from './run-record.js';

const summary = { session: 'main', text: 'Hook: ok', maxPending: 20 };
const done = (at: number) => ({ status: 'succeeded' as const, reply: 'ok', at, transcript: [], summary });
const list = { heading: 'Together:', marker: (n: number) => `\n${n}. ` };
const listed = (messages: string[]) => (messages.length === 1 ? messages[0]! : `${list.heading}${messages.map((m, i) => `${list.marker(i + 1)}${m}`).join('')}`);
const governedRun = (id: string, at: number, mappingId = 'alerts') => queuedRun(id, at, { source: { mappingId, path: mappingId } });
const claimIds = async (store: Store, now: number, limit = 10) => (await store.runs.claim({ owner: 'a', now, until: now + 60_000 }, limit)).map((r) => r.id);

/** runs.admit and the claim of governed runs: concurrency, rate and coalescing held in the store */
export function admissionCases(open: OpenStore) {
  describe("a mapping's traffic (runs.admit)", () => {
    it('coalesces the events of a key within the window into one run, claimable when the window ends, across a restart', async () => {
      const first = await open();
      const coalesce: RunAdmission = { mappingId: 'alerts', coalesce: { key: 'db', windowMs: 1000, list, maxEvents: 50, maxBytes: 262_144 } };
      expect(await first.runs.admit(governedRun('c1', 100), coalesce)).toEqual({ type: 'queued', runId: 'c1', notBefore: 1100, waitedFor: 'coalesce' });
      expect(await first.runs.admit(governedRun('c2', 400), coalesce)).toEqual({ type: 'coalesced', runId: 'c1', count: 2 });
      // another key is a run of its own
      expect(await first.runs.admit(governedRun('k1', 450), { ...coalesce, coalesce: { ...coalesce.coalesce!, key: 'web' } })).toMatchObject({ type: 'queued', runId: 'k1' });
      await first.close();

      const store = await open(first);
      expect(await store.runs.admit(governedRun('c3', 900), coalesce)).toEqual({ type: 'coalesced', runId: 'c1', count: 3 });
      expect(await store.runs.get('c2')).toBeUndefined();
      expect(await claimIds(store, 1099)).toEqual([]);
      const [run] = await store.runs.claim({ owner: 'a', now: 1100, until: 9999 }, 1);
      expect(run).toMatchObject({ id: 'c1', message: listed(['message c1', 'message c2', 'message c3']), coalescedCount: 3, waitedFor: 'coalesce', notBefore: 1100 });
      expect(run!.action.message).toBe(run!.message);
      // the window closed: the next event starts a run of its own
      expect(await store.runs.admit(governedRun('c4', 1200), coalesce)).toMatchObject({ type: 'queued', runId: 'c4', notBefore: 2200 });
    });

    it('bounds a coalesced run by maxEvents and by the UTF-8 bytes of its message: the event past either starts a run of its own', async () => {
      const store = await open();
      const bounded = (maxEvents: number, maxBytes: number): RunAdmission => ({ mappingId: 'alerts', coalesce: { key: 'db', windowMs: 1000, list, maxEvents, maxBytes } });
      const byEvents = bounded(3, 262_144);
      for (const [i, id] of ['e1', 'e2', 'e3'].entries()) expect(await store.runs.admit(governedRun(id, 100 + i), byEvents)).toMatchObject({ runId: 'e1' });
      expect(await store.runs.admit(governedRun('e4', 110), byEvents)).toMatchObject({ type: 'queued', runId: 'e4' });
      expect(await store.runs.admit(governedRun('e5', 111), byEvents)).toEqual({ type: 'coalesced', runId: 'e4', count: 2 });
      expect((await store.runs.get('e1'))!.message).toBe(listed(['message e1', 'message e2', 'message e3']));

      // 'é' is two bytes: the run of 'm1' and 'éé' takes exactly as many bytes as the bound
      const full = listed(['m1', 'éé']);
      const byBytes: RunAdmission = { ...bounded(50, Buffer.byteLength(full)), coalesce: { ...bounded(50, 0).coalesce!, key: 'bytes', maxBytes: Buffer.byteLength(full) } };
      const run = (id: string, message: string) => ({ ...governedRun(id, 200), message, action: { ...governedRun(id, 200).action, message } });
      expect(await store.runs.admit(run('b1', 'm1'), byBytes)).toMatchObject({ type: 'queued', runId: 'b1' });
      expect(await store.runs.admit(run('b2', 'éé'), byBytes)).toEqual({ type: 'coalesced', runId: 'b1', count: 2 });
      expect(await store.runs.admit(run('b3', 'x'), byBytes)).toMatchObject({ type: 'queued', runId: 'b3' });
      const [b1] = (await store.runs.claim({ owner: 'a', now: 1200, until: 9999 }, 10)).filter((r) => r.id === 'b1');
      expect(b1).toMatchObject({ message: full, coalescedCount: 2 });
      expect(b1!.action.message).toBe(full);
    });

    it('defers the runs beyond a rate to the time its window allows, or refuses them with the wait', async () => {
      const store = await open();
      const wait: RunAdmission = { mappingId: 'alerts', rate: { runs: 2, perMs: 1000, reject: false } };
      expect(await store.runs.admit(governedRun('r1', 100), wait)).toEqual({ type: 'queued', runId: 'r1' });
      expect(await store.runs.admit(governedRun('r2', 200), wait)).toEqual({ type: 'queued', runId: 'r2' });
      expect(await store.runs.admit(governedRun('r3', 300), wait)).toEqual({ type: 'queued', runId: 'r3', notBefore: 1100, waitedFor: 'rate' });
      expect(await store.runs.admit(governedRun('r4', 300), wait)).toEqual({ type: 'queued', runId: 'r4', notBefore: 1200, waitedFor: 'rate' });
      expect(await store.runs.admit(governedRun('r5', 300), { ...wait, rate: { ...wait.rate!, reject: true } })).toEqual({ type: 'rate-limited', retryAfterMs: 1800 });
      expect(await store.runs.get('r5')).toBeUndefined();
      // another mapping has a rate of its own
      expect(await store.runs.admit(governedRun('o1', 300, 'other'), { ...wait, mappingId: 'other' })).toEqual({ type: 'queued', runId: 'o1' });
      expect(await claimIds(store, 300)).toEqual(['r1', 'r2', 'o1']);
      expect(await claimIds(store, 1100)).toEqual(['r3']);
      expect(await store.runs.get('r4')).toMatchObject({ status: 'queued', waitedFor: 'rate', notBefore: 1200 });
      expect(await claimIds(store, 1200)).toEqual(['r4']);
    });

    it("runs at most `concurrency` of a mapping's runs at once across claimers, in order, passing over it for other mappings", async () => {
      const a = await open();
      const b = await open(a);
      const limited: RunAdmission = { mappingId: 'alerts', concurrency: 2 };
      for (const [i, id] of ['g1', 'g2', 'g3', 'g4'].entries()) await a.runs.admit(governedRun(id, 10 + i), limited);
      await a.runs.insert(queuedRun('free', 20));
      const now = Date.now();
      const byA = (await a.runs.claim({ owner: 'a', now, until: now + 60_000 }, 1)).map((r) => r.id);
      const byB = (await b.runs.claim({ owner: 'b', now, until: now + 60_000 }, 10)).map((r) => r.id);
      expect([...byA, ...byB].sort()).toEqual(['free', 'g1', 'g2']);
      expect(await a.runs.get('g3')).toMatchObject({ status: 'queued', waitedFor: 'concurrency' });
      expect(await claimIds(b, now)).toEqual([]);
      await a.runs.complete('g1', done(now));
      expect(await claimIds(b, now)).toEqual(['g3']);
      expect(await claimIds(a, now)).toEqual([]);
      // a lease that ran out frees its place: the run is claimable again, and counts as running no more
      expect((await claimIds(a, now + 60_001)).sort()).toEqual(['free', 'g2', 'g3']);
    });

    it("a completion's claim takes the governed run whose place it frees, and none while the limit is taken", async () => {
      const store = await open();
      const limited: RunAdmission = { mappingId: 'alerts', concurrency: 1 };
      for (const [i, id] of ['h1', 'h2', 'h3'].entries()) await store.runs.admit(governedRun(id, 10 + i), limited);
      const now = Date.now();
      const lease = { owner: 'a', now, until: now + 60_000 };
      await store.runs.insert(queuedRun('busy', 15));
      expect((await claimIds(store, now)).sort()).toEqual(['busy', 'h1']);
      // h1 holds the mapping's one place: a completion beside it claims none of its runs
      expect(await store.runs.completeAndClaimNext('busy', done(now), lease)).toEqual({ finished: true });
      const first = await store.runs.completeAndClaimNext('h1', done(now), lease);
      expect(first.claimed?.map((r) => r.id)).toEqual(['h2']);
      // two completions in one batch: the first frees the place the second's claim could take, in order
      await store.runs.insert(queuedRun('free', 20));
      expect(await claimIds(store, now)).toEqual(['free']);
      const [h2, free] = await Promise.all([store.runs.completeAndClaimNext('h2', done(now), lease), store.runs.completeAndClaimNext('free', done(now), lease)]);
      expect([...(h2.claimed ?? []), ...(free.claimed ?? [])].map((r) => r.id)).toEqual(['h3']);
      expect(await store.runs.completeAndClaimNext('h3', done(now), lease)).toEqual({ finished: true });
    });
  });
}
