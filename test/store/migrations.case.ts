import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/port.js';
import type { OpenStore } from './open-store-under-test.js';
import { agentAction, queuedRun } from './run-record.js';

/** a run as the previous schema version kept it */
export interface LegacyRun {
  id: string;
  status: 'queued' | 'succeeded';
  sessionKey: string;
  message: string;
  /** the action as that version stored it (JSON) */
  action: Record<string, unknown>;
  reply: string | null;
  createdAt: number;
  finishedAt: number | null;
}

/** A database built with the adapter's migrations up to the previous version (N-1). */
export interface PreviousVersionDatabase {
  insertRun(run: LegacyRun): Promise<void>;
  /** a session message as that version kept it */
  insertMessage(sessionKey: string, message: { runId: string | null; meta: Record<string, unknown> | null; createdAt: number }): Promise<void>;
  /** a usage row as that version kept it (a version with the usage table and its calls) */
  insertUsage(row: { at: number; keyName: string | null; agentId: string | null; totalTokens: number; cost: number; calls: number }): Promise<void>;
  /** opens the store on it: migrates it to the current version */
  migrate(): Promise<Store>;
}

/** migrations: from an empty database, and from the previous schema version with rows in it */
export function migrationsCases(open: OpenStore, previousVersion: () => Promise<PreviousVersionDatabase>) {
  describe('migrations', () => {
    it('from empty: every table is there, and opening it again migrates nothing and keeps the rows', async () => {
      const first = await open();
      await first.runs.insert(queuedRun('r1'));
      await first.events.enqueue('main', 'hello', 20);
      await first.sessions.append('s', { role: 'user', content: 'hi', createdAt: 1 });
      await first.state.set('k', 1);
      await first.apiKeys.create({ name: 'ci', keyHash: 'a'.repeat(64), createdAt: 1 });
      await first.knowledge.add({ agentId: 'main', filename: 'f.txt', bytes: 2, mimeType: 'text/plain', sha256: 'b'.repeat(64), metadata: null }, [{ content: 'hello world', terms: 'hello world' }]);
      await first.idempotency.claim({ scope: 's', key: 'k', requestHash: 'h', status: 'in_progress', runId: 'r1', responseStatus: null, responseBody: null, createdAt: 1, lockedUntil: 2, expiresAt: 3 }, 1);
      await first.close();
      const again = await open(first);
      expect(await again.runs.get('r1')).toEqual(queuedRun('r1'));
      expect(await again.probe.counts()).toMatchObject({ runs: { queued: 1 }, eventsPending: 1, knowledgeDocuments: 1, knowledgeChunks: 1 });
      expect(await again.sessions.exists('s')).toBe(true);
      expect(await again.state.get('k')).toBe(1);
      expect(await again.apiKeys.get('ci')).toMatchObject({ name: 'ci' });
      expect((await again.knowledge.search('main', ['hello'], 4)).candidates).toHaveLength(1);
    });

    it('from the previous version: rows survive, a stored action parses, and `deliver: false` is kept', async () => {
      const legacy = await previousVersion();
      const succeeded = (id: string, deliver: boolean): LegacyRun => ({
        id, status: 'succeeded', sessionKey: `hook:${id}`, message: 'm', action: agentAction('m', { deliver }), reply: 'ok', createdAt: 1, finishedAt: 50,
      });
      await legacy.insertRun(succeeded('wants', true));
      await legacy.insertRun(succeeded('quiet', false));
      // stored before actions named their agent: the run's agent column says it
      const { agentId: _, ...withoutAgent } = agentAction('m', { model: 'embedded/x' });
      await legacy.insertRun({ id: 'waiting', status: 'queued', sessionKey: 'hook:waiting', message: 'm', action: withoutAgent, reply: null, createdAt: 2, finishedAt: null });
      // queued behind it in its session: it waits for 'waiting' to finish
      await legacy.insertRun({ id: 'behind', status: 'queued', sessionKey: 'hook:waiting', message: 'm', action: agentAction('m'), reply: null, createdAt: 3, finishedAt: null });
      // sessions written before their summaries were kept: the migration sums them up, with the first message's agent
      await legacy.insertMessage('hook:wants', { runId: 'wants', meta: null, createdAt: 10 });
      await legacy.insertMessage('hook:wants', { runId: 'wants', meta: { agentId: 'other' }, createdAt: 12 });
      await legacy.insertMessage('chat:conv_1', { runId: null, meta: { agentId: 'sales' }, createdAt: 20 });
      await legacy.insertMessage('main', { runId: null, meta: null, createdAt: 30 });
      const store = await legacy.migrate();
      expect(await store.browse.sessions({ limit: 10, defaultAgentId: 'boss' })).toEqual([
        { key: 'main', agentId: 'boss', messages: 1, firstAt: 30, lastAt: 30 },
        { key: 'chat:conv_1', agentId: 'sales', messages: 1, firstAt: 20, lastAt: 20 },
        { key: 'hook:wants', agentId: 'main', messages: 2, firstAt: 10, lastAt: 12 },
      ]);
      await store.sessions.append('chat:conv_1', { role: 'assistant', content: 'hi', createdAt: 40, meta: { agentId: 'sales' } });
      expect((await store.browse.sessions({ limit: 1, defaultAgentId: 'boss' }))[0]).toEqual({ key: 'chat:conv_1', agentId: 'sales', messages: 2, firstAt: 20, lastAt: 40 });
      expect(await store.probe.counts()).toMatchObject({ runs: { queued: 2, running: 0 }, eventsPending: 0 });
      expect(await store.deliveries.runsAwaitingDelivery(0)).toEqual(['wants']);
      expect(await store.runs.claim({ owner: 'a', now: 3, until: 1000 }, 10)).toMatchObject([{ id: 'waiting', action: agentAction('m', { model: 'embedded/x' }) }]);
      expect(await store.probe.counts()).toMatchObject({ runs: { queued: 1, running: 1 } });
      expect((await store.runs.get('quiet'))?.action.deliver).toBe(false);
      // runs stored before are found by the mapping of their action (SQLite keeps it in a column since 19)
      const ofMapping = async (mappingId: string) => (await store.browse.runs({ limit: 10, mappingId })).map((r) => r.id).sort();
      expect(await ofMapping('agent')).toEqual(['behind', 'quiet', 'waiting', 'wants']);
      expect(await ofMapping('github')).toEqual([]);
      // and the migrated store works like a fresh one
      await store.runs.insert(queuedRun('new', 3, { deliver: true }));
      await store.runs.complete('new', { status: 'succeeded', reply: 'ok', at: 60, transcript: [], summary: { session: 'main', text: 'Hook new: ok', maxPending: 20 } });
      expect(await store.deliveries.runsAwaitingDelivery(0)).toEqual(['wants', 'new']);
      await store.runs.insert(queuedRun('hooked', 4, { source: { mappingId: 'github', path: 'github' } }));
      expect(await ofMapping('github')).toEqual(['hooked']);
    });
  });
}
