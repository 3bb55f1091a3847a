import { describe, expect, it } from 'vitest';
import type { IdempotencyRecord } from '../../src/store/port.js';
import type { OpenStore } from './open-store-under-test.js';
import { queuedRun } from './run-record.js';

const T = 1_000_000;
const record = (over: Partial<IdempotencyRecord> = {}): IdempotencyRecord => ({
  scope: 'agent',
  key: 'k',
  requestHash: 'h1',
  status: 'in_progress',
  runId: 'run-1',
  responseStatus: null,
  responseBody: null,
  createdAt: T,
  lockedUntil: T + 60_000,
  expiresAt: T + 3_600_000,
  ...over,
});

/** Idempotency-Key records: one claim wins, stale claims are recovered from the run they stored */
export function idempotencyCases(open: OpenStore) {
  describe('idempotency keys', () => {
    it('stores a wake\'s event and completes its key in one commit', async () => {
      const store = await open();
      expect((await store.idempotency.claim(record({ scope: 'wake' }), T)).type).toBe('claimed');
      await store.idempotency.completeWithEvent('wake', 'k', () => ({ status: 200, body: '{"ok":true}' }), { session: 'main', text: 'deploy done', maxPending: 20 });
      expect((await store.events.list('main', 10)).map((e) => e.text)).toEqual(['deploy done']);
      expect(await store.idempotency.claim(record({ scope: 'wake' }), T + 1)).toMatchObject({ type: 'existing', record: { status: 'done', responseStatus: 200, responseBody: '{"ok":true}' } });
    });

    it("stores a keyed wake's event with its key, done, in one commit; a held key, even expired, stores nothing", async () => {
      const store = await open();
      const { status: _s, responseStatus: _r, responseBody: _b, ...keyed } = record({ scope: 'wake', key: 'w' });
      const answer = (outcome: string) => ({ status: 200, body: `{"ok":true,"eventOutcome":"${outcome}"}` });
      expect(await store.idempotency.insertWithEvent(keyed, answer, { session: 'main', text: 'deploy done', maxPending: 20 })).toBe('queued');
      expect((await store.events.list('main', 10)).map((e) => e.text)).toEqual(['deploy done']);
      expect(await store.idempotency.claim(record({ scope: 'wake', key: 'w', runId: 'run-x' }), T + 1)).toMatchObject({
        type: 'existing',
        record: { status: 'done', runId: 'run-1', responseStatus: 200, responseBody: '{"ok":true,"eventOutcome":"queued"}' },
      });
      // the same key again: neither the event nor the key is written
      expect(await store.idempotency.insertWithEvent(keyed, answer, { session: 'main', text: 'deploy again', maxPending: 20 })).toBeUndefined();
      // an expired record is the claim's to forget: still nothing stored here
      await store.idempotency.claim(record({ scope: 'wake', key: 'old', expiresAt: T + 10 }), T);
      expect(await store.idempotency.insertWithEvent({ ...keyed, key: 'old', createdAt: T + 20 }, answer, { session: 'main', text: 'late', maxPending: 20 })).toBeUndefined();
      // a repeat of the pending event is coalesced, its key stored done with that answer
      expect(await store.idempotency.insertWithEvent({ ...keyed, key: 'w2' }, answer, { session: 'main', text: 'deploy done', maxPending: 20 })).toBe('coalesced');
      expect((await store.events.list('main', 10)).map((e) => e.text)).toEqual(['deploy done']);
      expect(await store.idempotency.claim(record({ scope: 'wake', key: 'w2' }), T + 1)).toMatchObject({ record: { responseBody: '{"ok":true,"eventOutcome":"coalesced"}' } });
    });

    it('stores a keyed run with its key, done, in one commit; a held key, even expired, stores nothing', async () => {
      const store = await open();
      const done = (over: Partial<IdempotencyRecord>) => record({ status: 'done', responseStatus: 202, responseBody: `{"ok":true,"runId":"${over.runId}"}`, ...over });
      expect(await store.runs.insertKeyed(queuedRun('run-a', T), done({ key: 'a', runId: 'run-a' }))).toBe(true);
      expect(await store.runs.get('run-a')).toMatchObject({ status: 'queued', sessionKey: 'hook:run-a' });
      expect(await store.idempotency.claim(record({ key: 'a', runId: 'run-x' }), T + 1)).toMatchObject({
        type: 'existing',
        record: { status: 'done', runId: 'run-a', responseStatus: 202, responseBody: '{"ok":true,"runId":"run-a"}' },
      });
      // the same key again (a retry racing the first): neither the run nor the key is written
      expect(await store.runs.insertKeyed(queuedRun('run-b', T), done({ key: 'a', runId: 'run-b' }))).toBe(false);
      expect(await store.runs.get('run-b')).toBeUndefined();
      // an expired record is the claim's to forget: still nothing stored here
      await store.idempotency.claim(record({ key: 'old', runId: 'run-o', expiresAt: T + 10 }), T);
      expect(await store.runs.insertKeyed(queuedRun('run-c', T + 20), done({ key: 'old', runId: 'run-c' }))).toBe(false);
      expect(await store.runs.get('run-c')).toBeUndefined();
      // stored claimed by a lease: running at once
      const lease = { owner: 'p1', now: T, until: T + 60_000 };
      expect(await store.runs.insertKeyed(queuedRun('run-d', T), done({ key: 'd', runId: 'run-d' }), lease)).toBe(true);
      expect(await store.runs.get('run-d')).toMatchObject({ status: 'running', startedAt: T });
    });

    it('lets one claim win; the others see it in progress, then done', async () => {
      const store = await open();
      expect(await store.idempotency.claim(record(), T)).toMatchObject({ type: 'claimed', record: { runId: 'run-1' } });
      expect(await store.idempotency.claim(record({ runId: 'run-2' }), T + 1)).toMatchObject({ type: 'existing', record: { status: 'in_progress', runId: 'run-1' } });
      await store.idempotency.complete('agent', 'k', { status: 202, body: '{"ok":true,"runId":"run-1"}' });
      expect(await store.idempotency.claim(record({ runId: 'run-3' }), T + 2)).toMatchObject({ type: 'existing', record: { status: 'done', responseStatus: 202 } });
      // scoped per path
      expect(await store.idempotency.claim(record({ scope: 'wake' }), T + 2)).toMatchObject({ type: 'claimed' });
    });

    it('gives a key to exactly one of two processes racing on it', async () => {
      const a = await open();
      const b = await open(a);
      const claims = await Promise.all([a.idempotency.claim(record({ runId: 'run-a' }), T), b.idempotency.claim(record({ runId: 'run-b' }), T)]);
      expect(claims.map((c) => c.type).sort()).toEqual(['claimed', 'existing']);
      const winner = claims.find((c) => c.type === 'claimed')!.record.runId;
      expect(claims.find((c) => c.type === 'existing')!.record.runId).toBe(winner);
    });

    it('recovers a key left in progress by a process that died', async () => {
      const store = await open();
      // died after storing the run: the run is the commit point, so the key becomes that run's 202
      await store.idempotency.claim(record({ key: 'after-run', runId: 'run-a' }), T);
      await store.runs.insert(queuedRun('run-a', T));
      const later = T + 120_000; // past lockedUntil
      expect(await store.idempotency.claim(record({ key: 'after-run', runId: 'run-b' }), later)).toMatchObject({
        type: 'existing',
        record: { status: 'done', responseStatus: 202, responseBody: '{"ok":true,"runId":"run-a"}' },
      });

      // died before storing anything: the key is free again (it keeps the run id it was given)
      await store.idempotency.claim(record({ key: 'before-run', runId: 'run-c' }), T);
      expect(await store.idempotency.claim(record({ key: 'before-run', runId: 'run-d', lockedUntil: later + 60_000 }), later)).toMatchObject({
        type: 'claimed',
        record: { runId: 'run-c', lockedUntil: later + 60_000 },
      });
      // ...for another body too: nothing was done under the key
      await store.idempotency.claim(record({ key: 'other', requestHash: 'h1' }), T);
      expect(await store.idempotency.claim(record({ key: 'other', requestHash: 'h2', lockedUntil: later + 60_000 }), later)).toMatchObject({ type: 'claimed', record: { requestHash: 'h2' } });
      expect(await store.idempotency.claim(record({ key: 'other', requestHash: 'h1' }), later + 1)).toMatchObject({ type: 'existing', record: { requestHash: 'h2', status: 'in_progress' } });
    });

    it('forgets expired keys, never one still locked; release drops only an unfinished key', async () => {
      const store = await open();
      await store.idempotency.claim(record({ key: 'done', expiresAt: T + 10 }), T);
      await store.idempotency.complete('agent', 'done', { status: 200, body: '{}' });
      await store.idempotency.claim(record({ key: 'busy', expiresAt: T + 10, lockedUntil: T + 100 }), T);
      expect(await store.idempotency.prune(T + 50)).toBe(1);
      expect(await store.idempotency.claim(record({ key: 'busy' }), T + 50)).toMatchObject({ type: 'existing', record: { status: 'in_progress' } });
      // an expired done key is claimed afresh without waiting for a prune
      await store.idempotency.claim(record({ key: 'again', expiresAt: T + 10 }), T);
      await store.idempotency.complete('agent', 'again', { status: 200, body: '{}' });
      expect(await store.idempotency.claim(record({ key: 'again', requestHash: 'new' }), T + 20)).toMatchObject({ type: 'claimed' });

      await store.idempotency.complete('agent', 'again', { status: 200, body: '{}' });
      await store.idempotency.release('agent', 'again');
      expect(await store.idempotency.claim(record({ key: 'again', requestHash: 'new' }), T + 30)).toMatchObject({ type: 'existing', record: { status: 'done' } });
    });

    it('recovers every key in progress at once, whatever its lock: done from the run it stored, else forgotten', async () => {
      const store = await open();
      await store.runs.insert(queuedRun('stored', T));
      await store.idempotency.claim(record({ key: 'run-stored', runId: 'stored' }), T);
      await store.idempotency.claim(record({ key: 'nothing-stored', runId: 'never' }), T);
      await store.idempotency.claim(record({ key: 'answered', runId: 'other' }), T);
      await store.idempotency.complete('agent', 'answered', { status: 200, body: '{"ok":true}' });
      expect(await store.idempotency.recoverInProgress()).toBe(2);
      // still locked by the time (T + 1 is long before lockedUntil): answered all the same
      expect(await store.idempotency.claim(record({ key: 'run-stored', runId: 'retry' }), T + 1)).toMatchObject({
        type: 'existing',
        record: { status: 'done', responseStatus: 202, responseBody: JSON.stringify({ ok: true, runId: 'stored' }) },
      });
      expect(await store.idempotency.claim(record({ key: 'nothing-stored', runId: 'retry' }), T + 1)).toMatchObject({ type: 'claimed', record: { runId: 'retry' } });
      expect(await store.idempotency.claim(record({ key: 'answered' }), T + 1)).toMatchObject({ type: 'existing', record: { status: 'done', responseStatus: 200 } });
    });
  });
}
