import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { changeTopic, CHANGE_KINDS, withChangeFeed, type ChangeKind } from '../../../src/runtime/operator/change-feed.js';
import { LiveFeed, type LiveMessage } from '../../../src/runtime/operator/live-feed.js';
import { LocalSignals } from '../../../src/store/local-signals.js';
import type { Store } from '../../../src/store/port.js';
import { openSqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import { eventually, tempDir } from '../../helpers/start-herald.js';
import { queuedRun } from '../../store/run-record.js';

const stores: Store[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});

/** a store with the feed, and the topics its signals carried, in order */
function feedStore() {
  const store = withChangeFeed(openSqliteStore(path.join(tempDir(), 'herald.db')));
  stores.push(store);
  const told: ChangeKind[] = [];
  for (const kind of CHANGE_KINDS) store.signals.subscribe(changeTopic(kind), () => told.push(kind));
  return { store, told };
}

describe('the change feed', () => {
  it('signals a write of each kind once it is stored, and nothing for a write that changed nothing', async () => {
    const { store, told } = feedStore();
    await store.runs.insert(queuedRun('r1'));
    expect(told).toEqual(['runs']);
    expect(await store.runs.get('r1')).toBeDefined();
    await store.events.enqueue('main', 'Deploy finished', 20);
    // the same event again is not stored (it repeats the previous one): nothing to tell, and the window of events is open anyway
    await store.events.enqueue('main', 'Deploy finished', 20);
    await store.sessions.append('chat:1', { role: 'user', content: 'hi', createdAt: 1 });
    expect(told).toEqual(['runs', 'events', 'sessions']);
    // a cancel of an unknown run, an abandon of an unknown delivery: no change
    expect(await store.runs.cancel('nope', 1)).toBe(false);
    expect(await store.deliveries.abandon('nope', 1)).toBe(false);
    expect(told).toEqual(['runs', 'events', 'sessions']);
  });

  it("signals a run's completion when the same commit claims the next run into its place", async () => {
    const { store, told } = feedStore();
    await store.runs.insert({ ...queuedRun('r1', 1), sessionKey: 'hook:busy' });
    await store.runs.insert({ ...queuedRun('r2', 2), sessionKey: 'hook:busy' });
    const lease = { owner: 'a', now: 3, until: Date.now() + 60_000 };
    await store.runs.claim(lease, 1);
    const message = (role: 'user' | 'assistant') => ({ role, content: role, createdAt: 4, runId: 'r1' });
    const handed = await store.runs.completeAndClaimNext(
      'r1',
      { status: 'succeeded', reply: 'ok', at: 4, transcript: [message('user'), message('assistant')], summary: { session: 'main', text: 'Hook r1: ok', maxPending: 20 } },
      { ...lease, now: 4 },
    );
    expect(handed.claimed?.[0]?.id).toBe('r2');
    // the run, its summary event and its transcript: what a console showing runs, the event queue or sessions redraws
    await eventually(() => told.includes('events') && told.includes('sessions') && told.filter((k) => k === 'runs').length >= 2);
  });

  it('answers the calls its store writes together with their one promise, and tells them once', async () => {
    const { store, told } = feedStore();
    const call = (at: number) => ({ at, source: 'run' as const, model: 'embedded/extractive', promptTokens: 1, completionTokens: 1, totalTokens: 2, estimated: true, cost: 0 });
    // the usage rows asked for while one group commit gathers share its write (UsageRecorder watches it once)
    const first = store.usage.record([call(1)]);
    const second = store.usage.record([call(2)]);
    expect(second).toBe(first);
    await first;
    expect(told).toEqual(['usage']);
    expect((await store.usage.report({ by: 'model' }))[0]).toMatchObject({ requests: 2 });
  });

  it("signals runs when a turn records tool calls, pauses for approval, and a person decides (the console's Approvals page and run timeline)", async () => {
    const { store, told } = feedStore();
    const at = Date.now();
    await store.runs.insert(queuedRun('r1', at), { owner: 'a', now: at, until: at + 60_000 });
    await eventually(() => told.length === 1);
    const call = {
      id: 'tc_1', callId: 'call_1', ownerKind: 'run' as const, ownerId: 'r1', agentId: 'main', turn: 0, server: 'github', tool: 'create_issue',
      arguments: '{}', readOnly: false, status: 'waiting_approval' as const, createdAt: at, approvalRequired: true, approvalExpiresAt: at + 60_000,
    };
    const settled = async (action: () => Promise<unknown>) => {
      // each after the window of the one before, so each is told on its own
      await new Promise((r) => setTimeout(r, 250));
      const before = told.length;
      await action();
      expect(told.slice(before)).toEqual(['runs']);
    };
    await settled(() => store.runs.checkpoint('r1', 'a', { messages: [] }, [call]));
    await settled(() => store.runs.pauseForApproval('r1', 'a'));
    await settled(() => store.toolCalls.decide('tc_1', { decision: 'approved', by: 'gateway-token', at }));
    // a decision on a call that no longer waits changed nothing
    const before = told.length;
    await new Promise((r) => setTimeout(r, 250));
    expect(await store.toolCalls.decide('tc_1', { decision: 'denied', by: 'x', at })).toBeUndefined();
    expect(told.length).toBe(before);
  });

  it('tells a burst at its start and once more at its end', async () => {
    const { store, told } = feedStore();
    for (let i = 0; i < 20; i++) await store.runs.insert(queuedRun(`r${i}`));
    expect(told).toEqual(['runs']);
    await eventually(() => told.length === 2);
    expect(told).toEqual(['runs', 'runs']);
  });
});

describe('the live feed', () => {
  it('reads its snapshot only after a change, once for changes that come together, and never without a client', async () => {
    const signals = new LocalSignals();
    let reads = 0;
    const feed = new LiveFeed(signals, async () => ++reads);
    const messages: LiveMessage<number>[] = [];
    signals.publish(changeTopic('runs'));
    const off = feed.subscribe((m) => messages.push(m));
    expect(reads).toBe(0);

    signals.publish(changeTopic('receipts'));
    // these arrive while the first snapshot is being taken: they share the next one
    signals.publish(changeTopic('runs'));
    signals.publish(changeTopic('events'));
    await eventually(() => messages.length === 2);
    expect(messages).toEqual([
      { kinds: ['receipts'], snapshot: 1 },
      { kinds: ['runs', 'events'], snapshot: 2 },
    ]);

    off();
    signals.publish(changeTopic('deliveries'));
    await new Promise((r) => setImmediate(r));
    expect(reads).toBe(2);
  });
});
