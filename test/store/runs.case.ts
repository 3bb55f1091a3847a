import { describe, expect, it } from 'vitest';
import type { OpenStore } from './open-store-under-test.js';
import { queuedRun } from './run-record.js';

const summary = (text: string) => ({ session: 'main', text, maxPending: 20 });
const transcript = (runId: string) => [
  { role: 'user' as const, content: 'hi', createdAt: 1, runId },
  { role: 'assistant' as const, content: 'ok', createdAt: 30, runId },
];

/** runs: durable across a restart, completed with transcript and summary in one transaction */
export function runsCases(open: OpenStore) {
  describe('runs', () => {
    it('keeps runs, their claims and the unfinished ones in order across a restart', async () => {
      const first = await open();
      await first.runs.insert(queuedRun('r1', 1));
      await first.runs.insert(queuedRun('r2', 2, { deliver: true, thinking: 'low', to: '42' }));
      await first.runs.insert(queuedRun('r3', 3));
      expect((await first.runs.claim({ owner: 'a', now: 10, until: 1000 }, 1)).map((r) => r.id)).toEqual(['r1']);
      await first.runs.release(['r1'], 'a');
      await first.runs.complete('r3', { status: 'timed_out', error: 'timed out after 1s', at: 20, transcript: [], summary: summary('Hook r3: (timeout)') });
      await first.close();

      const store = await open(first);
      expect((await store.runs.claim({ owner: 'b', now: 11, until: 1000 }, 5)).map((r) => `${r.id}:${r.status}`)).toEqual(['r1:running', 'r2:running']);
      // the action comes back whole and parsed, as it went in
      expect(await store.runs.get('r2')).toEqual({ ...queuedRun('r2', 2, { deliver: true, thinking: 'low', to: '42' }), status: 'running', startedAt: 11 });
      expect(await store.runs.get('r3')).toMatchObject({ status: 'timed_out', error: 'timed out after 1s', finishedAt: 20, reply: null });
      expect(await store.runs.get('nope')).toBeUndefined();
    });

    it("hands out a session's runs one at a time in order, passing over cancelled ones, across a restart", async () => {
      const first = await open();
      const inBusy = (id: string) => ({ ...queuedRun(id), sessionKey: 'hook:busy' });
      const claimIds = async (store: typeof first, now: number) => (await store.runs.claim({ owner: 'a', now, until: Date.now() + 60_000 }, 10)).map((r) => r.id);
      for (const id of ['b1', 'b2', 'b3', 'b4', 'b5']) await first.runs.insert(inBusy(id));
      await first.runs.insert(queuedRun('other'));
      // the head of the busy session waits for nothing; the rest wait behind it
      expect(await claimIds(first, 1)).toEqual(['b1', 'other']);
      expect(await claimIds(first, 2)).toEqual([]);
      // a waiting run cancelled is passed over; the queued head cancelled releases the next
      expect(await first.runs.cancel('b2', 3)).toBe(true);
      await first.runs.complete('b1', { status: 'failed', error: 'no', at: 4, transcript: [], summary: summary('Hook b1: (error) no') });
      expect(await first.runs.cancel('b3', 5)).toBe(true);
      await first.close();

      const store = await open(first);
      expect(await claimIds(store, 6)).toEqual(['b4']);
      await store.runs.insert(inBusy('b6'));
      await store.runs.complete('b4', { status: 'succeeded', reply: 'ok', at: 7, transcript: [], summary: summary('Hook b4: ok') });
      expect(await claimIds(store, 8)).toEqual(['b5']);
      await store.runs.complete('b5', { status: 'succeeded', reply: 'ok', at: 9, transcript: [], summary: summary('Hook b5: ok') });
      expect(await claimIds(store, 10)).toEqual(['b6']);
      await store.runs.complete('b6', { status: 'succeeded', reply: 'ok', at: 11, transcript: [], summary: summary('Hook b6: ok') });
      // the session is empty again: a new run is its head at once
      await store.runs.insert(inBusy('b7'));
      expect(await claimIds(store, 12)).toEqual(['b7']);
    });

    it("claims a busy session's runs behind the one claimed (`behind`), in order, each completed only after the one ahead", async () => {
      const first = await open();
      const inBusy = (id: string) => ({ ...queuedRun(id), sessionKey: 'hook:busy' });
      const done = (id: string, at: number) => ({ status: 'succeeded' as const, reply: 'ok', at, transcript: transcript(id), summary: summary(`Hook ${id}: ok`) });
      for (const id of ['b1', 'b2', 'b3', 'b4', 'b5', 'b6']) await first.runs.insert(inBusy(id));
      await first.runs.insert(queuedRun('other'));
      // a cancelled run is passed over
      expect(await first.runs.cancel('b3', 1)).toBe(true);
      const until = Date.now() + 60_000;
      // each claimed run, then the ones behind it in its session
      expect((await first.runs.claim({ owner: 'a', now: 2, until }, 5, 2)).map((r) => `${r.id}:${r.status}`)).toEqual(['b1:running', 'b2:running', 'b4:running', 'other:running']);
      // a run behind is not completed before the run ahead of it, and stays claimed
      expect(await first.runs.complete('b2', done('b2', 3))).toBe(false);
      expect(await first.runs.get('b2')).toMatchObject({ status: 'running', finishedAt: null });
      // completed together, in order: both are
      expect(await Promise.all([first.runs.complete('b1', done('b1', 4)), first.runs.complete('b2', done('b2', 4))])).toEqual([true, true]);
      // nobody else gets b4 while its lease holds; b5 and b6 wait behind it
      expect(await first.runs.claim({ owner: 'b', now: 5, until }, 5, 2)).toEqual([]);
      await first.runs.complete('other', done('other', 5));
      await first.close();

      // its claimer died: once the lease ran out, b4 is retaken with the runs behind it
      const store = await open(first);
      const later = until + 1;
      expect((await store.runs.claim({ owner: 'b', now: later, until: later + 60_000 }, 5, 1)).map((r) => r.id)).toEqual(['b4', 'b5']);
      // a completion claiming into its slot brings the runs behind it too
      await store.runs.complete('b4', done('b4', later));
      const handed = await store.runs.completeAndClaimNext('b5', done('b5', later), { owner: 'b', now: later, until: later + 60_000 }, 3);
      expect(handed).toMatchObject({ finished: true });
      expect(handed.claimed?.map((r) => r.id)).toEqual(['b6']);
      expect((await store.sessions.messages('hook:busy')).map((m) => m.runId)).toEqual(['b1', 'b1', 'b2', 'b2', 'b4', 'b4', 'b5', 'b5']);
    });

    it('completes a run with its transcript and summary at once, and only once', async () => {
      const store = await open();
      await store.runs.insert(queuedRun('r1', 1));
      expect(await store.runs.complete('r1', { status: 'succeeded', reply: 'ok', at: 30, transcript: transcript('r1'), summary: summary('Hook r1: ok') })).toBe(true);
      // a resumed run finishing again changes nothing: no second transcript, no second summary
      expect(await store.runs.complete('r1', { status: 'failed', error: 'again', at: 40, transcript: transcript('r1'), summary: summary('Hook r1: (error) again') })).toBe(false);
      expect(await store.runs.get('r1')).toMatchObject({ status: 'succeeded', reply: 'ok', finishedAt: 30 });
      expect((await store.sessions.messages('hook:r1')).map((m) => m.content)).toEqual(['hi', 'ok']);
      expect((await store.events.list('main', 10)).map((e) => e.text)).toEqual(['Hook r1: ok']);
      expect(await store.runs.complete('nope', { status: 'failed', at: 1, transcript: [], summary: summary('x') })).toBe(false);
      expect(await store.events.countPending('main')).toBe(1);
    });

    it("completes a run whose caller names its session (not read back): transcript and summary written, and only once", async () => {
      const store = await open();
      await store.runs.insert(queuedRun('r1', 1));
      await store.runs.insert(queuedRun('r2', 2));
      const [claimed] = await store.runs.claim({ owner: 'p1', now: 3, until: 60_000 }, 1);
      expect(claimed!.id).toBe('r1');
      const named = (id: string, status: 'succeeded' | 'failed', at: number) => ({
        status, reply: status === 'succeeded' ? 'ok' : null, at, transcript: status === 'succeeded' ? transcript(id) : [], sessionKey: `hook:${id}`, summary: summary(`Hook ${id}: ${status}`),
      });
      // running (claimed), then queued (never claimed): each from the status it had
      expect(await store.runs.complete('r1', named('r1', 'succeeded', 30))).toBe(true);
      expect(await store.runs.complete('r2', named('r2', 'failed', 31))).toBe(true);
      expect(await store.runs.complete('r1', named('r1', 'succeeded', 40))).toBe(false);
      expect(await store.runs.complete('nope', named('nope', 'succeeded', 41))).toBe(false);
      expect(await store.runs.get('r1')).toMatchObject({ status: 'succeeded', reply: 'ok', finishedAt: 30 });
      expect(await store.runs.get('r2')).toMatchObject({ status: 'failed', finishedAt: 31 });
      expect((await store.sessions.messages('hook:r1')).map((m) => m.content)).toEqual(['hi', 'ok']);
      expect(await store.sessions.messages('hook:r2')).toEqual([]);
      expect(await store.sessions.messages('hook:nope')).toEqual([]);
      expect((await store.events.list('main', 10)).map((e) => e.text)).toEqual(['Hook r2: failed', 'Hook r1: succeeded']);
    });

    it('completes a run whose transcript opens its session, and one the hint is wrong about: the transcript after what the session holds, counted once', async () => {
      const store = await open();
      await store.runs.insert({ ...queuedRun('r1', 1), sessionKey: 'hook:made-r1' });
      await store.runs.insert({ ...queuedRun('r2', 2), sessionKey: 'hook:made-r2' });
      // r2's session is written to before its run completes (another caller named its key)
      await store.sessions.appendMany('hook:made-r2', [{ role: 'user', content: 'before', createdAt: 2 }]);
      const made = (id: string) => ({ status: 'succeeded' as const, reply: 'ok', at: 30, transcript: transcript(id), sessionKey: `hook:made-${id}`, opensSession: true, summary: summary(`Hook ${id}`) });
      expect(await store.runs.complete('r1', made('r1'))).toBe(true);
      expect(await store.runs.complete('r2', made('r2'))).toBe(true);
      expect((await store.sessions.messages('hook:made-r1')).map((m) => m.content)).toEqual(['hi', 'ok']);
      expect((await store.sessions.messages('hook:made-r2')).map((m) => m.content)).toEqual(['before', 'hi', 'ok']);
      const sessions = await store.browse.sessions({ limit: 10, defaultAgentId: 'main' });
      expect(sessions.find((s) => s.key === 'hook:made-r1')).toMatchObject({ messages: 2, firstAt: 1, lastAt: 30 });
      expect(sessions.find((s) => s.key === 'hook:made-r2')).toMatchObject({ messages: 3, firstAt: 1, lastAt: 30 });
    });

    it('completes a run once when two processes finish it together', async () => {
      const a = await open();
      const b = await open(a);
      await a.runs.insert(queuedRun('r1', 1));
      const finish = (store: typeof a, reply: string) =>
        store.runs.complete('r1', { status: 'succeeded', reply, at: 30, transcript: transcript('r1'), summary: summary(`Hook r1: ${reply}`) });
      const results = await Promise.all([finish(a, 'from a'), finish(b, 'from b')]);
      expect(results.sort()).toEqual([false, true]);
      expect(await a.sessions.messages('hook:r1')).toHaveLength(2);
      expect(await a.events.list('main', 10)).toHaveLength(1);
    });

    it("completes a run and claims the next one in the same commit: the session's next when it is the oldest ready, never a finished run's", async () => {
      const store = await open();
      const inBusy = (id: string, at: number) => ({ ...queuedRun(id, at), sessionKey: 'hook:busy' });
      const lease = (now: number) => ({ owner: 'a', now, until: Date.now() + 60_000 });
      const done = (id: string, at: number) => ({ status: 'succeeded' as const, reply: 'ok', at, transcript: transcript(id), summary: summary(`Hook ${id}: ok`) });
      await store.runs.insert(inBusy('b1', 1));
      await store.runs.insert(inBusy('b2', 2));
      await store.runs.insert(queuedRun('other', 3));
      await store.runs.insert(inBusy('b3', 4));
      expect((await store.runs.claim(lease(5), 1)).map((r) => r.id)).toEqual(['b1']);

      // b1's end releases b2, which is older than `other`: handed over at once, running under the lease
      const first = await store.runs.completeAndClaimNext('b1', done('b1', 6), lease(6));
      expect(first.finished).toBe(true);
      expect(first.claimed?.[0]).toMatchObject({ id: 'b2', status: 'running', startedAt: 6, sessionKey: 'hook:busy' });
      expect(first.claimed).toEqual([await store.runs.get('b2')]);
      expect(await store.runs.get('b1')).toMatchObject({ status: 'succeeded', finishedAt: 6 });
      expect((await store.events.list('main', 10)).map((e) => e.text)).toEqual(['Hook b1: ok']);
      // nothing else was claimed: b3 waits behind b2, `other` is still queued
      expect(await store.runs.get('other')).toMatchObject({ status: 'queued' });

      // b2's end releases b3, but `other` is older: the oldest ready run comes first, as a claim's would
      const second = await store.runs.completeAndClaimNext('b2', done('b2', 7), lease(7));
      expect(second.claimed?.map((r) => r.id)).toEqual(['other']);
      expect((await store.runs.claim(lease(8), 5)).map((r) => r.id)).toEqual(['b3']);

      // a run finished already is left as it is, and claims nothing
      await store.runs.insert(queuedRun('late', 9));
      expect(await store.runs.completeAndClaimNext('b2', done('b2', 10), lease(10))).toEqual({ finished: false });
      expect(await store.runs.get('late')).toMatchObject({ status: 'queued' });
      // the last one: finished, nothing left to claim
      await store.runs.complete('late', done('late', 11));
      await store.runs.complete('other', done('other', 11));
      expect(await store.runs.completeAndClaimNext('b3', done('b3', 12), lease(12))).toEqual({ finished: true });
      expect((await store.sessions.messages('hook:busy')).map((m) => m.runId)).toEqual(['b1', 'b1', 'b2', 'b2', 'b3', 'b3']);
    });

    it('completes runs asked together, each claiming its own next run, oldest first, none twice', async () => {
      const store = await open();
      const lease = (now: number) => ({ owner: 'a', now, until: Date.now() + 60_000 });
      const done = (id: string, at: number) => ({ status: 'succeeded' as const, reply: 'ok', at, transcript: transcript(id), summary: summary(`Hook ${id}: ok`) });
      for (const [id, at] of [['a1', 1], ['a2', 2], ['a3', 3]] as const) await store.runs.insert(queuedRun(id, at));
      await store.runs.insert({ ...queuedRun('s2', 5), sessionKey: 'hook:a1' });
      await store.runs.insert(queuedRun('q1', 6));
      await store.runs.insert(queuedRun('q2', 7));
      await store.runs.insert(queuedRun('q3', 8));
      expect((await store.runs.claim(lease(9), 3)).map((r) => r.id)).toEqual(['a1', 'a2', 'a3']);
      // a1's session (queuedRun keys it by id) has s2 next, released by a1's end
      await store.runs.insert({ ...queuedRun('late', 10), sessionKey: 'hook:a1' });

      const results = await Promise.all([
        store.runs.completeAndClaimNext('a1', done('a1', 11), lease(11)),
        store.runs.completeAndClaimNext('a2', done('a2', 11), lease(11)),
        store.runs.completeAndClaimNext('nope', done('nope', 11), lease(11)),
        store.runs.completeAndClaimNext('a3', done('a3', 11), lease(11)),
      ]);
      expect(results.map((r) => r.finished)).toEqual([true, true, false, true]);
      const next = results.map((r) => r.claimed?.[0]?.id);
      expect(next[2]).toBeUndefined();
      expect(new Set(next.filter(Boolean)).size).toBe(3);
      for (const id of next.filter((n): n is string => n !== undefined)) expect(await store.runs.get(id)).toMatchObject({ status: 'running' });
      // the three oldest claimable: the one s2 or q1.. as ordered by insertion, never `late` (behind s2 in its session)
      expect(next.filter(Boolean).sort()).toEqual(['q1', 'q2', 's2']);
      expect((await store.events.list('main', 10)).map((e) => e.text).sort()).toEqual(['Hook a1: ok', 'Hook a2: ok', 'Hook a3: ok']);
      expect((await store.runs.claim(lease(12), 5)).map((r) => r.id)).toEqual(['q3']);
    });

    it("scrubs the one-reply credential from a run's stored action: by id, and by when the run was made; the rest of the action as it was, across a restart", async () => {
      const first = await open();
      const to = (id: string) => `interaction:1012345678901234567:${id}#token=aW50ZXJhY3Rpb246${id}`;
      const interaction = (id: string, createdAt: number) => queuedRun(id, createdAt, { deliver: true, channel: 'discord', to: to(id), threadId: 't1', failureReply: 'Sorry.' });
      await first.runs.insert(interaction('101', 10));
      await first.runs.insert(interaction('102', 20));
      await first.runs.insert(interaction('103', 30));
      await first.runs.insert(queuedRun('plain', 15, { deliver: true, channel: 'discord', to: '42' }));
      // the first run's reply delivered: its credential goes, the others' stay
      expect(await first.runs.scrubCredentials(['101', 'plain', 'nope'])).toBe(1);
      expect(await first.runs.get('101')).toEqual({ ...interaction('101', 10), action: { ...interaction('101', 10).action, to: 'interaction:1012345678901234567:101#token=…' } });
      expect((await first.runs.get('102'))!.action.to).toBe(to('102'));
      // once scrubbed, scrubbed again changes nothing
      expect(await first.runs.scrubCredentials(['101'])).toBe(0);
      await first.close();

      const store = await open(first);
      expect((await store.runs.get('101'))!.action.to).toBe('interaction:1012345678901234567:101#token=…');
      // the credential's life over for the runs made before 25 (from 0): 102, not 103; a plain recipient untouched
      expect(await store.runs.scrubCredentials([], { from: 0, before: 25 })).toBe(1);
      expect((await store.runs.get('102'))!.action).toEqual({ ...interaction('102', 20).action, to: 'interaction:1012345678901234567:102#token=…' });
      expect((await store.runs.get('103'))!.action.to).toBe(to('103'));
      expect((await store.runs.get('plain'))!.action.to).toBe('42');
      // a run whose action was scrubbed is still claimed and run as it was
      expect((await store.runs.claim({ owner: 'a', now: 40, until: Date.now() + 60_000 }, 5)).map((r) => r.id).sort()).toEqual(['101', '102', '103', 'plain']);
      const stored = JSON.stringify(await Promise.all(['101', '102'].map((id) => store.runs.get(id))));
      expect(stored).not.toContain('aW50ZXJhY3Rpb246');
    });

    it('refuses a run whose action is not a whole agent action', async () => {
      const store = await open();
      const broken = { ...queuedRun('bad'), action: { kind: 'agent', message: 'm' } } as never;
      await expect(store.runs.insert(broken)).rejects.toThrow();
      expect(await store.runs.get('bad')).toBeUndefined();
    });
  });

  describe('sessions', () => {
    it('gives the newest messages, oldest first', async () => {
      const store = await open();
      for (let i = 1; i <= 5; i++) await store.sessions.append('s', { role: i % 2 ? 'user' : 'assistant', content: `m${i}`, createdAt: i, runId: 'r', meta: i === 5 ? { citations: ['c1'] } : null });
      expect((await store.sessions.messages('s')).map((m) => m.content)).toEqual(['m1', 'm2', 'm3', 'm4', 'm5']);
      expect(await store.sessions.messages('s', 2)).toMatchObject([{ content: 'm4', role: 'assistant' }, { content: 'm5', meta: { citations: ['c1'] } }]);
      expect(await store.sessions.exists('s')).toBe(true);
      expect(await store.sessions.exists('t')).toBe(false);
    });

    it('stores a turn appended together whole or not at all, and keeps it across a restart', async () => {
      const store = await open();
      await store.sessions.appendMany('chat:a', [
        { role: 'user', content: 'question', createdAt: 1, meta: { agentId: 'x' } },
        { role: 'assistant', content: 'answer', createdAt: 2, meta: { agentId: 'x' } },
      ]);
      // the second message breaks a constraint: the first must not stay behind alone
      const broken = [{ role: 'user' as const, content: 'orphan', createdAt: 3 }, { role: 'assistant' as const, content: null as unknown as string, createdAt: 4 }];
      await expect(store.sessions.appendMany('chat:a', broken)).rejects.toThrow();
      await store.close();
      const again = await open(store);
      expect((await again.sessions.messages('chat:a')).map((m) => [m.role, m.content, m.meta])).toEqual([
        ['user', 'question', { agentId: 'x' }],
        ['assistant', 'answer', { agentId: 'x' }],
      ]);
    });

    it('gives every running run back to the queue at once, whoever held it, in its session\'s order', async () => {
      const store = await open();
      for (const [id, at] of [['b1', 1], ['b2', 2], ['solo', 3], ['done', 4]] as const) {
        await store.runs.insert({ ...queuedRun(id, at), sessionKey: id === 'solo' || id === 'done' ? `hook:${id}` : 'hook:busy' });
      }
      const until = Date.now() + 60_000;
      expect((await store.runs.claim({ owner: 'dead', now: 5, until }, 5, 1)).map((r) => r.id)).toEqual(['b1', 'b2', 'solo', 'done']);
      await store.runs.complete('done', { status: 'succeeded', reply: 'ok', at: 6, transcript: transcript('done'), summary: summary('Hook done: ok') });
      expect(await store.runs.requeueRunning()).toBe(3);
      expect(await store.runs.get('b2')).toMatchObject({ status: 'queued' });
      expect(await store.runs.get('done')).toMatchObject({ status: 'succeeded' });
      // claimable now, long before the dead owner's lease would have run out; the session's order holds
      expect((await store.runs.claim({ owner: 'next', now: 7, until }, 5)).map((r) => r.id)).toEqual(['b1', 'solo']);
    });
  });
}
