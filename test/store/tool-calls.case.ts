import { describe, expect, it } from 'vitest';
import type { Store, ToolCallRecord } from '../../src/store/port.js';
import type { OpenStore } from './open-store-under-test.js';
import { queuedRun } from './run-record.js';

const lease = (owner: string, now: number, ms = 60_000) => ({ owner, now, until: now + ms });
const summary = (text: string) => ({ session: 'main', text, maxPending: 20 });
const done = (at: number) => ({ status: 'succeeded' as const, reply: 'ok', at, transcript: [], summary: summary('done') });
const inSession = (id: string, session: string) => ({ ...queuedRun(id), sessionKey: session });

/** a call of a run's turn as the turn stores it (every field given: a record reads back equal) */
export const toolCall = (id: string, runId: string, over: Partial<ToolCallRecord> = {}): ToolCallRecord => ({
  id,
  callId: `call_${id}`,
  ownerKind: 'run',
  ownerId: runId,
  agentId: 'main',
  mappingId: 'github',
  keyName: null,
  turn: 0,
  server: 'fs',
  tool: 'write_file',
  arguments: '{"path":"a.txt"}',
  readOnly: false,
  status: 'running',
  result: null,
  error: null,
  createdAt: 100,
  startedAt: null,
  finishedAt: null,
  durationMs: null,
  approvalRequired: false,
  approvalExpiresAt: null,
  approval: null,
  content: null,
  task: null,
  ...over,
});

/** a call held for a person, expiring at `expiresAt` */
const awaiting = (id: string, runId: string, expiresAt = 10_000, over: Partial<ToolCallRecord> = {}) =>
  toolCall(id, runId, { status: 'waiting_approval', approvalRequired: true, approvalExpiresAt: expiresAt, ...over });

const approved = (at: number) => ({ decision: 'approved' as const, by: 'ops', at });
const claimIds = async (store: Store, owner: string, now: number, behind = 0) => (await store.runs.claim(lease(owner, now), 10, behind)).map((r) => r.id);

/** a run claimed by `owner`, its turn checkpointed with `calls`, then paused for approval */
async function pausedRun(store: Store, id: string, calls: ToolCallRecord[], owner = 'a', session = `hook:${id}`) {
  await store.runs.insert(inSession(id, session), lease(owner, 10));
  expect(await store.runs.checkpoint(id, owner, { messages: [{ role: 'user', content: 'hi' }] }, calls)).toBe(true);
  expect(await store.runs.pauseForApproval(id, owner)).toBe(true);
}

/** tool calls: on the record with their run, and the approvals that pause a run and queue it again */
export function toolCallsCases(open: OpenStore) {
  describe('tool calls', () => {
    it('keeps calls with their owner in the order made, their end once, across a restart', async () => {
      const first = await open();
      const calls = [toolCall('tc1', 'r1'), toolCall('tc2', 'r1', { turn: 1, readOnly: true, server: 'herald', tool: 'search_knowledge' }), toolCall('tc0', 'r1', { turn: 1 })];
      await first.toolCalls.insert(calls);
      await first.toolCalls.insert([toolCall('tc9', 'resp_1', { ownerKind: 'response', keyName: 'ci', mappingId: null })]);
      expect(await first.toolCalls.finish('tc1', { status: 'succeeded', result: 'written', startedAt: 101, finishedAt: 150, durationMs: 49 })).toBe(true);
      await first.toolCalls.finish('tc2', { status: 'failed', error: 'no such file', finishedAt: 160, durationMs: 3 });
      // a final status is never written over: not by a late end (which says so), not by a start
      expect(await first.toolCalls.finish('tc1', { status: 'timed_out', error: 'late', finishedAt: 999, durationMs: 1 })).toBe(false);
      expect(await first.toolCalls.finish('nope', { status: 'failed', error: 'x', finishedAt: 1, durationMs: 1 })).toBe(false);
      await first.toolCalls.start('tc2', 170);
      await first.toolCalls.finish('tc0', { status: 'interrupted', finishedAt: 170 });
      await first.close();

      const store = await open(first);
      expect(await store.toolCalls.ofOwner('run', 'r1')).toEqual([
        { ...calls[0], status: 'succeeded', result: 'written', startedAt: 101, finishedAt: 150, durationMs: 49 },
        { ...calls[1], status: 'failed', error: 'no such file', finishedAt: 160, durationMs: 3 },
        { ...calls[2], status: 'interrupted', finishedAt: 170 },
      ]);
      expect((await store.toolCalls.ofOwner('response', 'resp_1')).map((c) => c.id)).toEqual(['tc9']);
      expect(await store.toolCalls.ofOwner('chat', 'r1')).toEqual([]);
      // a page of runs' calls counted by status in one read; an owner without calls is absent
      const counts = await store.toolCalls.statusCounts('run', ['r1', 'nobody']);
      expect(Object.fromEntries(counts)).toEqual({ r1: { succeeded: 1, failed: 1, interrupted: 1 } });
      expect((await store.toolCalls.statusCounts('response', ['resp_1'])).get('resp_1')).toEqual({ running: 1 });
      expect((await store.toolCalls.statusCounts('run', [])).size).toBe(0);
      expect(await store.toolCalls.get('tc9')).toEqual(toolCall('tc9', 'resp_1', { ownerKind: 'response', keyName: 'ci', mappingId: null }));
      expect(await store.toolCalls.get('nope')).toBeUndefined();
    });

    it("lists an owner kind's newest calls first, up to a limit (the console's calls from MCP clients)", async () => {
      const store = await open();
      const mcp = (id: string, session: string, createdAt: number) => toolCall(id, session, { ownerKind: 'mcp', agentId: '', mappingId: null, keyName: 'desk', createdAt });
      // the same time twice: the later insert is the newer
      await store.toolCalls.insert([mcp('m1', 's1', 100), mcp('m2', 's2', 300), toolCall('r1', 'run1', { createdAt: 400 })]);
      await store.toolCalls.insert([mcp('m3', 's1', 300)]);
      expect((await store.toolCalls.recentOf('mcp', 10)).map((c) => c.id)).toEqual(['m3', 'm2', 'm1']);
      expect((await store.toolCalls.recentOf('mcp', 2)).map((c) => c.id)).toEqual(['m3', 'm2']);
      expect(await store.toolCalls.recentOf('chat', 10)).toEqual([]);
      expect((await store.toolCalls.recentOf('mcp', 1))[0]).toEqual(mcp('m3', 's1', 300));
    });

    it("records interrupted the running calls whose lease ran out, once, and renews a live owner's across a restart", async () => {
      const first = await open();
      const mcp = (id: string, over: Partial<ToolCallRecord> = {}) => toolCall(id, 's1', { ownerKind: 'mcp', agentId: '', mappingId: null, keyName: 'desk', startedAt: 100, ...over });
      await first.toolCalls.insert([
        { ...mcp('live'), lease: { owner: 'p1', until: 1000 } },
        { ...mcp('dead'), lease: { owner: 'p2', until: 500 } },
        // a run's call has no lease: its run's lease decides
        toolCall('run_call', 'r1', { startedAt: 100 }),
        mcp('waits', { status: 'waiting_approval', approvalRequired: true, approvalExpiresAt: 10_000 }),
      ]);
      // a call started after its approval gets its lease in the same write
      await first.toolCalls.decide('waits', { decision: 'approved', by: 'ann', at: 150 });
      await first.toolCalls.start('waits', 200, { owner: 'p2', until: 700 });
      await first.toolCalls.renewLeases('p1', 2000);
      await first.close();

      const store = await open(first);
      const [a, b] = await Promise.all([store.toolCalls.interruptLapsed(1500, 'gone', false), store.toolCalls.interruptLapsed(1500, 'gone', false)]);
      expect(a + b).toBe(2);
      expect(await store.toolCalls.get('dead')).toEqual({ ...mcp('dead'), status: 'interrupted', error: 'gone', finishedAt: 1500, durationMs: 1400 });
      expect(await store.toolCalls.get('waits')).toMatchObject({ status: 'interrupted', startedAt: 200, finishedAt: 1500, durationMs: 1300 });
      expect((await store.toolCalls.get('live'))?.status).toBe('running');
      expect((await store.toolCalls.get('run_call'))?.status).toBe('running');
      // a finished call is never interrupted; serving alone, every leased call still running is
      await store.toolCalls.insert([{ ...mcp('done'), lease: { owner: 'p1', until: 1 } }]);
      await store.toolCalls.finish('done', { status: 'succeeded', result: 'ok', finishedAt: 120, durationMs: 20 });
      expect(await store.toolCalls.interruptLapsed(1600, 'gone', true)).toBe(1);
      expect((await store.toolCalls.get('live'))?.status).toBe('interrupted');
      expect((await store.toolCalls.get('done'))?.status).toBe('succeeded');
      expect((await store.toolCalls.get('run_call'))?.status).toBe('running');
    });

    it("checkpoints a run's turn with its calls only under the owner's lease, and reads the state back on every read", async () => {
      const store = await open();
      await store.runs.insert(queuedRun('r1'));
      expect(await store.runs.get('r1')).not.toHaveProperty('turnState');
      // queued: nobody holds it
      expect(await store.runs.checkpoint('r1', 'a', { step: 0 }, [toolCall('tc0', 'r1')])).toBe(false);
      expect((await store.runs.claim(lease('a', 10, 5), 1)).map((r) => r.id)).toEqual(['r1']);
      const state = { messages: [{ role: 'assistant', content: '', toolCalls: [{ id: 'call_tc1' }] }], turn: 1 };
      expect(await store.runs.checkpoint('r1', 'a', state, [toolCall('tc1', 'r1')])).toBe(true);
      expect((await store.runs.get('r1'))?.turnState).toEqual(state);
      // a: lease lost to b (expired, claimed again); a's checkpoint writes nothing
      expect((await store.runs.claim(lease('b', 100), 1)).map((r) => [r.id, r.turnState])).toEqual([['r1', state]]);
      expect(await store.runs.checkpoint('r1', 'a', { lost: true }, [toolCall('tc2', 'r1')])).toBe(false);
      expect(await store.runs.pauseForApproval('r1', 'a')).toBe(false);
      expect((await store.runs.get('r1'))?.turnState).toEqual(state);
      expect((await store.toolCalls.ofOwner('run', 'r1')).map((c) => c.id)).toEqual(['tc1']);
      // finished: nothing more either
      expect(await store.runs.complete('r1', done(120))).toBe(true);
      expect(await store.runs.checkpoint('r1', 'b', { after: true }, [])).toBe(false);
      expect((await store.runs.get('r1'))?.turnState).toEqual(state);
    });

    it("keeps a running call's task handle and a result's content summary, across a restart", async () => {
      const first = await open();
      await first.toolCalls.insert([toolCall('tc1', 'r1'), toolCall('tc2', 'r1', { status: 'succeeded' })]);
      await first.toolCalls.setTask('tc1', { server: 'fs', taskId: 'task-7', pollInterval: 500 });
      // a call no longer running takes no task
      await first.toolCalls.setTask('tc2', { server: 'fs', taskId: 'late' });
      await first.close();

      const store = await open(first);
      expect((await store.toolCalls.get('tc1'))?.task).toEqual({ server: 'fs', taskId: 'task-7', pollInterval: 500 });
      expect((await store.toolCalls.get('tc2'))?.task).toBeNull();
      const content = [
        { kind: 'image' as const, mimeType: 'image/png', bytes: 3, data: 'AAAA' },
        { kind: 'resource_link' as const, uri: 'https://example.com/a', name: 'a' },
        { kind: 'structured' as const, json: '{"n":1}' },
      ];
      await store.toolCalls.finish('tc1', { status: 'succeeded', result: 'ok', finishedAt: 200, durationMs: 100, content });
      expect(await store.toolCalls.get('tc1')).toMatchObject({ status: 'succeeded', content, task: { taskId: 'task-7' } });
    });

    it('pauses a run for approval; the last decision queues it again, for any claimer, with its turn state', async () => {
      const first = await open();
      await pausedRun(first, 'r1', [toolCall('tc1', 'r1'), awaiting('tc2', 'r1', 5_000), awaiting('tc3', 'r1', 6_000)]);
      expect(await first.runs.get('r1')).toMatchObject({ status: 'waiting_approval', finishedAt: null });
      expect(await first.probe.counts()).toMatchObject({ runs: { queued: 0, running: 0, waitingApproval: 1 } });
      // never claimed while it waits, not even by the one that paused it, and a restart leaves it waiting
      expect(await claimIds(first, 'a', 20)).toEqual([]);
      expect(await first.runs.requeueRunning()).toBe(0);
      expect((await first.toolCalls.pendingApprovals(10)).map((c) => c.id)).toEqual(['tc2', 'tc3']);
      await first.close();

      const store = await open(first);
      const one = await store.toolCalls.decide('tc2', approved(30));
      // approved: still waiting_approval (the resumer executes it), decided
      expect(one).toEqual({ ...awaiting('tc2', 'r1', 5_000), approval: approved(30) });
      expect((await store.runs.get('r1'))?.status).toBe('waiting_approval');
      expect((await store.toolCalls.pendingApprovals(10)).map((c) => c.id)).toEqual(['tc3']);
      // the last one decided: the run is queued in the same transaction
      const denial = { decision: 'denied' as const, by: 'ops', at: 40, reason: 'not today' };
      expect(await store.toolCalls.decide('tc3', denial)).toMatchObject({ id: 'tc3', status: 'denied', approval: denial });
      expect((await store.runs.get('r1'))?.status).toBe('queued');
      expect(await store.probe.counts()).toMatchObject({ runs: { queued: 1, running: 0, waitingApproval: 0 } });
      expect(await store.toolCalls.pendingApprovals(10)).toEqual([]);
      // decided once: a second decision is refused
      expect(await store.toolCalls.decide('tc3', approved(50))).toBeUndefined();
      expect(await store.toolCalls.decide('tc1', approved(50))).toBeUndefined();

      // another replica claims it, with the turn where it stood; the approved call starts and ends
      const other = await open(store);
      const [claimed] = await other.runs.claim(lease('b', 60), 1);
      // its start stays the first claim's: the wait for a person is not its queue time (the run page's times)
      expect(claimed).toMatchObject({ id: 'r1', status: 'running', startedAt: 10, turnState: { messages: [{ role: 'user', content: 'hi' }] } });
      expect((await other.runs.get('r1'))?.startedAt).toBe(10);
      await other.toolCalls.start('tc2', 61);
      await other.toolCalls.finish('tc2', { status: 'succeeded', result: 'ok', finishedAt: 62, durationMs: 1 });
      expect(await other.toolCalls.get('tc2')).toMatchObject({ status: 'succeeded', startedAt: 61, approval: approved(30) });
      expect(await other.runs.complete('r1', done(70))).toBe(true);
    });

    it('goes on without pausing when every call was decided before the pause, and never starts an undecided call', async () => {
      const store = await open();
      await store.runs.insert(queuedRun('r1'), lease('a', 10));
      expect(await store.runs.checkpoint('r1', 'a', { step: 1 }, [awaiting('tc1', 'r1')])).toBe(true);
      await store.toolCalls.start('tc1', 11);
      expect((await store.toolCalls.get('tc1'))?.status).toBe('waiting_approval');
      // decided while the turn was still running: the run stays the owner's
      expect(await store.toolCalls.decide('tc1', approved(12))).toMatchObject({ status: 'waiting_approval' });
      expect(await store.runs.pauseForApproval('r1', 'a')).toBe(false);
      expect(await store.runs.get('r1')).toMatchObject({ status: 'running' });
      expect(await store.runs.renew(['r1'], 'a', 1_000)).toEqual(['r1']);
    });

    it('of two decisions racing on one call (two handles on one database), exactly one wins', async () => {
      const a = await open();
      const b = await open(a);
      for (let i = 0; i < 5; i++) {
        await pausedRun(a, `r${i}`, [awaiting(`tc${i}`, `r${i}`)]);
        const decisions = await Promise.all([
          a.toolCalls.decide(`tc${i}`, approved(20)),
          b.toolCalls.decide(`tc${i}`, { decision: 'denied', by: 'other', at: 20 }),
        ]);
        expect(decisions.filter((d) => d !== undefined)).toHaveLength(1);
        const winner = decisions.find((d) => d !== undefined)!;
        expect(await b.toolCalls.get(`tc${i}`)).toEqual(winner);
        expect((await a.runs.get(`r${i}`))?.status).toBe('queued');
      }
      expect(await a.probe.counts()).toMatchObject({ runs: { queued: 5, running: 0, waitingApproval: 0 } });
    });

    it("holds its session's later runs behind it until it ends; a cancel ends it and releases them", async () => {
      const store = await open();
      await pausedRun(store, 'p1', [awaiting('tc1', 'p1')], 'a', 'hook:busy');
      await store.runs.insert(inSession('p2', 'hook:busy'));
      await store.runs.insert(inSession('p3', 'hook:busy'));
      await store.runs.insert(queuedRun('other'));
      expect(await claimIds(store, 'b', 20, 5)).toEqual(['other']);
      expect(await claimIds(store, 'b', 21, 5)).toEqual([]);
      // decided: the paused run is the session's head again, the later ones behind it
      await store.toolCalls.decide('tc1', approved(22));
      expect(await claimIds(store, 'b', 23)).toEqual(['p1']);
      expect(await store.runs.checkpoint('p1', 'b', { again: true }, [awaiting('tc2', 'p1')])).toBe(true);
      expect(await store.runs.pauseForApproval('p1', 'b')).toBe(true);
      expect(await claimIds(store, 'b', 24, 5)).toEqual([]);
      // cancelled while it waits: p2 goes, then p3
      expect(await store.runs.cancel('p1', 25)).toBe(true);
      expect(await store.runs.get('p1')).toMatchObject({ status: 'cancelled', finishedAt: 25 });
      expect(await store.runs.cancel('p1', 26)).toBe(false);
      expect(await store.probe.counts()).toMatchObject({ runs: { waitingApproval: 0 } });
      expect(await claimIds(store, 'b', 27, 5)).toEqual(['p2', 'p3']);
      // its call, undecided, is decided no more by a sweep: the run is finished and stays so
      expect(await store.toolCalls.decide('tc2', { decision: 'expired', by: 'timeout', at: 28 })).toMatchObject({ status: 'denied' });
      expect((await store.runs.get('p1'))?.status).toBe('cancelled');
    });

    it("lists a run waiting for approval by its status, and once among every run", async () => {
      const store = await open();
      await pausedRun(store, 'p1', [awaiting('tc1', 'p1')]);
      await store.runs.insert(queuedRun('q1', 2));
      await store.runs.insert(queuedRun('s1', 3), lease('a', 3));
      await store.runs.complete('s1', done(4));
      const ids = async (status?: 'waiting_approval' | 'queued' | 'succeeded') => (await store.browse.runs({ status, limit: 10 })).map((r) => r.id);
      expect(await ids('waiting_approval')).toEqual(['p1']);
      expect(await ids('queued')).toEqual(['q1']);
      expect((await ids()).sort()).toEqual(['p1', 'q1', 's1']);
      await store.toolCalls.decide('tc1', approved(5));
      expect(await ids('waiting_approval')).toEqual([]);
      expect((await ids('queued')).sort()).toEqual(['p1', 'q1']);
    });

    it("stops a claim's chain at a run of the session waiting for approval", async () => {
      const store = await open();
      const session = 'hook:chain';
      for (const id of ['c1', 'c2', 'c3']) await store.runs.insert(inSession(id, session));
      // c1 and c2 claimed together (c2 behind c1); c2's turn pauses before c1 ends
      expect(await claimIds(store, 'a', 10, 1)).toEqual(['c1', 'c2']);
      expect(await store.runs.checkpoint('c2', 'a', { step: 1 }, [awaiting('tc1', 'c2')])).toBe(true);
      expect(await store.runs.pauseForApproval('c2', 'a')).toBe(true);
      expect(await store.runs.complete('c1', done(11))).toBe(true);
      // c2 waits for a person, c3 behind it
      expect(await claimIds(store, 'b', 12, 5)).toEqual([]);
      await store.toolCalls.decide('tc1', approved(13));
      expect(await claimIds(store, 'b', 14, 5)).toEqual(['c2', 'c3']);
    });

    it('lists the approvals expired by a time, oldest first; deciding them as expired denies them', async () => {
      const store = await open();
      await pausedRun(store, 'r1', [awaiting('tc1', 'r1', 1_000, { createdAt: 100 }), awaiting('tc2', 'r1', 3_000, { createdAt: 101 })]);
      await pausedRun(store, 'r2', [awaiting('tc3', 'r2', 2_000, { createdAt: 102 })]);
      expect(await store.toolCalls.expiredApprovals(999, 10)).toEqual([]);
      expect((await store.toolCalls.expiredApprovals(2_000, 10)).map((c) => c.id)).toEqual(['tc1', 'tc3']);
      expect((await store.toolCalls.expiredApprovals(2_000, 1)).map((c) => c.id)).toEqual(['tc1']);
      expect((await store.toolCalls.pendingApprovals(2)).map((c) => c.id)).toEqual(['tc1', 'tc2']);
      for (const call of await store.toolCalls.expiredApprovals(2_000, 10)) {
        expect(await store.toolCalls.decide(call.id, { decision: 'expired', by: 'timeout', at: 2_000 })).toMatchObject({ status: 'denied', approval: { decision: 'expired' } });
      }
      expect(await store.toolCalls.expiredApprovals(2_000, 10)).toEqual([]);
      // r2's only call expired: queued; r1 still waits for tc2
      expect((await store.runs.get('r2'))?.status).toBe('queued');
      expect((await store.runs.get('r1'))?.status).toBe('waiting_approval');
      expect((await store.toolCalls.expiredApprovals(5_000, 10)).map((c) => c.id)).toEqual(['tc2']);
    });
  });
}
