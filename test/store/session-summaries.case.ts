import { describe, expect, it } from 'vitest';
import type { SessionMessage, Store } from '../../src/store/port.js';
import type { PreviousVersionDatabase } from './migrations.case.js';
import type { OpenStore } from './open-store-under-test.js';
import { queuedRun } from './run-record.js';

const summary = { session: 'main', text: 'Hook: ok', maxPending: 20 };
const said = (role: SessionMessage['role'], createdAt: number, over: Partial<SessionMessage> = {}): SessionMessage => ({ role, content: role, createdAt, ...over });
const turn = (at: number, runId: string | null = null, meta: SessionMessage['meta'] = null) => [
  said('user', at, { runId, meta }),
  said('assistant', at + 5, { runId, meta }),
];
const summaryOf = async (store: Store, key: string) =>
  (await store.browse.sessions({ limit: 100, defaultAgentId: 'boss' })).find((s) => s.key === key);

/**
 * A session's summary (the sessions list) is kept once per turn written: the count and span of
 * the turn's messages; the agent, when the summary is new, from the turn's first message (its
 * meta's agentId, else its run's agent; none for main, the default agent's).
 */
export function sessionSummariesCases(open: OpenStore, summarisedVersion: () => Promise<PreviousVersionDatabase>) {
  describe('session summaries', () => {
    it("a run's turn counts its messages, spans them, and names the run's agent; a second turn adds up", async () => {
      const store = await open();
      await store.runs.insert({ ...queuedRun('r1', 1), agentId: 'support' });
      // listed from its first run on, before any message (queued, running, or failed before the turn)
      expect(await summaryOf(store, 'hook:r1')).toEqual({ key: 'hook:r1', agentId: 'support', messages: 0, firstAt: 1, lastAt: 1 });
      await store.runs.complete('r1', { status: 'succeeded', reply: 'ok', at: 20, transcript: turn(10, 'r1'), summary });
      expect(await summaryOf(store, 'hook:r1')).toEqual({ key: 'hook:r1', agentId: 'support', messages: 2, firstAt: 1, lastAt: 15 });
      // the session's next run (another agent's): the summary keeps its first agent
      await store.runs.insert({ ...queuedRun('r2', 2), sessionKey: 'hook:r1', agentId: 'other' });
      await store.runs.complete('r2', { status: 'succeeded', reply: 'ok', at: 40, transcript: turn(30, 'r2', { agentId: 'meta' }), summary });
      expect(await summaryOf(store, 'hook:r1')).toEqual({ key: 'hook:r1', agentId: 'support', messages: 4, firstAt: 1, lastAt: 35 });
      expect(await store.sessions.messages('hook:r1')).toHaveLength(4);
    });

    it('main names no agent (the default one), whatever its messages say; appendMany and append add up', async () => {
      const store = await open();
      await store.sessions.appendMany('main', turn(100, null, { agentId: 'sales' }));
      expect(await summaryOf(store, 'main')).toEqual({ key: 'main', agentId: 'boss', messages: 2, firstAt: 100, lastAt: 105 });
      await store.sessions.append('main', said('user', 200, { meta: { agentId: 'sales' } }));
      await store.sessions.appendMany('main', turn(300));
      expect(await summaryOf(store, 'main')).toEqual({ key: 'main', agentId: 'boss', messages: 5, firstAt: 100, lastAt: 305 });
    });

    it("the agent is the turn's first message's: its meta, else its run's (a later message's meta does not count)", async () => {
      const store = await open();
      await store.runs.insert({ ...queuedRun('r1', 1), agentId: 'support' });
      await store.sessions.appendMany('chat:a', [said('user', 1, { meta: { agentId: 'sales' } }), said('assistant', 2, { runId: 'r1' })]);
      await store.sessions.appendMany('chat:b', [said('user', 1, { runId: 'r1' }), said('assistant', 2, { meta: { agentId: 'sales' } })]);
      await store.sessions.appendMany('chat:c', [said('user', 1), said('assistant', 2, { meta: { agentId: 'sales' } })]);
      await store.sessions.append('chat:d', said('user', 1, { runId: 'r1', meta: { agentId: 'sales' } }));
      const agents = (await store.browse.sessions({ limit: 10, defaultAgentId: 'boss' })).map((s) => [s.key, s.agentId]);
      expect(Object.fromEntries(agents)).toEqual({ 'chat:a': 'sales', 'chat:b': 'support', 'chat:c': 'boss', 'chat:d': 'sales', 'hook:r1': 'support' });
    });

    it("a session its caller calls fresh is summarised as any other; one that is not fresh after all still adds up", async () => {
      const store = await open();
      await store.sessions.appendMany('chat:new', turn(10, null, { agentId: 'sales' }), true);
      expect(await summaryOf(store, 'chat:new')).toEqual({ key: 'chat:new', agentId: 'sales', messages: 2, firstAt: 10, lastAt: 15 });
      await store.sessions.appendMany('chat:new', turn(20, null, { agentId: 'other' }), true);
      expect(await summaryOf(store, 'chat:new')).toEqual({ key: 'chat:new', agentId: 'sales', messages: 4, firstAt: 10, lastAt: 25 });
      expect(await store.sessions.messages('chat:new')).toHaveLength(4);
      // listed by its run, with no message yet
      await store.runs.insert({ ...queuedRun('r9', 1), agentId: 'support' });
      await store.sessions.appendMany('hook:r9', turn(30, 'r9'), true);
      expect(await summaryOf(store, 'hook:r9')).toEqual({ key: 'hook:r9', agentId: 'support', messages: 2, firstAt: 1, lastAt: 35 });
      expect((await store.sessions.messages('hook:r9')).map((m) => m.createdAt)).toEqual([30, 35]);
    });

    it('the span is the least and greatest time written, whatever the order; a long turn counts once per message', async () => {
      const store = await open();
      await store.sessions.appendMany('chat:x', [said('user', 50), said('assistant', 40), said('user', 60), said('assistant', 55)]);
      expect(await summaryOf(store, 'chat:x')).toMatchObject({ messages: 4, firstAt: 40, lastAt: 60 });
      // older than the session's first message: first_at moves back, last_at stays
      await store.sessions.appendMany('chat:x', turn(20));
      expect(await summaryOf(store, 'chat:x')).toMatchObject({ messages: 6, firstAt: 20, lastAt: 60 });
      const long = Array.from({ length: 19 }, (_, i) => said(i % 2 ? 'assistant' : 'user', 100 + i, { meta: i === 0 ? { agentId: 'sales' } : null }));
      await store.sessions.appendMany('chat:long', long);
      expect(await summaryOf(store, 'chat:long')).toEqual({ key: 'chat:long', agentId: 'sales', messages: 19, firstAt: 100, lastAt: 118 });
      expect((await store.sessions.messages('chat:long')).map((m) => m.createdAt)).toEqual(long.map((m) => m.createdAt));
    });

    it('sessions summarised by the previous version keep counting after the upgrade', async () => {
      const legacy = await summarisedVersion();
      await legacy.insertRun({ id: 'r1', status: 'succeeded', sessionKey: 'hook:r1', message: 'm', action: { kind: 'agent', message: 'm' }, reply: 'ok', createdAt: 1, finishedAt: 2 });
      await legacy.insertMessage('hook:r1', { runId: 'r1', meta: null, createdAt: 10 });
      await legacy.insertMessage('hook:r1', { runId: 'r1', meta: null, createdAt: 15 });
      await legacy.insertMessage('main', { runId: null, meta: { agentId: 'sales' }, createdAt: 20 });
      const store = await legacy.migrate();
      expect(await summaryOf(store, 'hook:r1')).toEqual({ key: 'hook:r1', agentId: 'main', messages: 2, firstAt: 10, lastAt: 15 });
      await store.sessions.appendMany('hook:r1', turn(30, 'r1'));
      await store.sessions.appendMany('main', turn(5));
      await store.sessions.appendMany('chat:new', turn(40, null, { agentId: 'sales' }));
      expect(await store.browse.sessions({ limit: 10, defaultAgentId: 'boss' })).toEqual([
        { key: 'chat:new', agentId: 'sales', messages: 2, firstAt: 40, lastAt: 45 },
        { key: 'hook:r1', agentId: 'main', messages: 4, firstAt: 10, lastAt: 35 },
        { key: 'main', agentId: 'boss', messages: 3, firstAt: 5, lastAt: 20 },
      ]);
    });
  });
}
