import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { scheduleAction } from '../../../src/runtime/schedules/schedules.js';
import type { FireJob } from '../../../src/runtime/schedules/scheduler.js';
import type { Store } from '../../../src/store/port.js';
import { closeOpened, putJob, schedulerOn, TestClock, type Fired } from '../../helpers/scheduler-clock.js';
import { tempDir } from '../../helpers/start-herald.js';

/**
 * What one fire becomes, on a clock the test drives: a process killed in the middle of a fire, a
 * job whose previous run is still unfinished (overlap), fires due while herald was down (catchUp).
 */
afterEach(closeOpened);

const T0 = Date.parse('2026-01-05T00:00:00Z');
const MIN = 60_000;

const isolated = { sessionTarget: 'isolated' as const, payload: { kind: 'agentTurn' as const, message: 'look at the queue' } };

/** a fire makes its run, queued in the store, as the run queue's submit does */
const insertsRun = (store: () => Store): FireJob => async (schedule, dueAt, runId) => {
  const action = scheduleAction(schedule.job, dueAt, 'main');
  await store().runs.insert({ id: runId!, status: 'queued', agentId: action.agentId, name: action.name, sessionKey: action.sessionKey!, message: action.message, action, reply: null, error: null, createdAt: dueAt, startedAt: null, finishedAt: null });
  return {};
};

/** until the scheduler has called its fire `n` times: a fire that never ends cannot be awaited */
async function untilFired(fired: Fired[], n: number): Promise<void> {
  while (fired.length < n) await new Promise((resolve) => setImmediate(resolve));
}

describe('a process killed in the middle of a fire (kill -9)', () => {
  it('a fire claimed but never made is made once at the next start, under the run id chosen at its claim', async () => {
    const file = path.join(tempDir(), 'herald.db');
    const clock = new TestClock(T0);
    const fired: Fired[] = [];
    // the first process claims the fire, then dies before its run is made: its fire never ends
    const dead = schedulerOn(file, clock, fired, { fire: () => new Promise(() => {}), track: false });
    // overlap queue: the later fires are made though the retaken run is still queued
    await putJob(dead.store, dead.scheduler, clock, { ...isolated, overlap: 'queue', schedule: { kind: 'every', every: '1m' } });
    await dead.scheduler.start();
    clock.time = T0 + MIN;
    dead.scheduler.wake();
    await untilFired(fired, 1);
    const [claimed] = await dead.store.schedules.fires('job', 5);
    expect(claimed).toMatchObject({ dueAt: T0 + MIN, outcome: 'claimed', runId: fired[0]!.runId });

    clock.time = T0 + MIN + 30_000;
    let second: Store | undefined;
    const next = schedulerOn(file, clock, fired, { fire: insertsRun(() => second!) });
    second = next.store;
    await next.scheduler.start(true);
    await clock.set(T0 + 2 * MIN, next.scheduler);
    await clock.set(T0 + 3 * MIN, next.scheduler);
    // made once after the restart, under the same run id; nothing fired twice
    expect(fired.map((f) => [f.dueAt - T0, f.runId === fired[0]!.runId])).toEqual([[MIN, true], [MIN, true], [2 * MIN, false], [3 * MIN, false]]);
    expect(await second.runs.get(fired[0]!.runId!)).toMatchObject({ status: 'queued' });
    expect((await second.schedules.fires('job', 5)).map((f) => [f.dueAt - T0, f.outcome])).toEqual([[3 * MIN, 'dispatched'], [2 * MIN, 'dispatched'], [MIN, 'dispatched']]);
  });

  it('a fire whose run was made before the kill is only marked at the next start: no second run', async () => {
    const file = path.join(tempDir(), 'herald.db');
    const clock = new TestClock(T0);
    const fired: Fired[] = [];
    let first: Store | undefined;
    const made = insertsRun(() => first!);
    // the run is in the store, then the process dies before it marks the fire
    const dead = schedulerOn(file, clock, fired, { fire: async (...args) => (await made(...args), new Promise(() => {})), track: false });
    first = dead.store;
    await putJob(dead.store, dead.scheduler, clock, { ...isolated, schedule: { kind: 'every', every: '1m' } });
    await dead.scheduler.start();
    clock.time = T0 + MIN;
    dead.scheduler.wake();
    await untilFired(fired, 1);
    while (!(await dead.store.runs.get(fired[0]!.runId!))) await new Promise((resolve) => setImmediate(resolve));

    clock.time = T0 + MIN + 30_000;
    const next = schedulerOn(file, clock, fired);
    await next.scheduler.start(true);
    await clock.set(T0 + MIN + 30_000, next.scheduler);
    expect(fired).toHaveLength(1);
    expect(await next.store.schedules.fires('job', 5)).toMatchObject([{ dueAt: T0 + MIN, outcome: 'dispatched', runId: fired[0]!.runId }]);
  });

  it('a replica that keeps running makes a dead replica\'s claimed fire once schedules.retakeAfter (default 1m) has passed', async () => {
    const file = path.join(tempDir(), 'herald.db');
    const clock = new TestClock(T0);
    const fired: Fired[] = [];
    const dead = schedulerOn(file, clock, fired, { fire: () => new Promise(() => {}), track: false });
    const live = schedulerOn(file, clock, fired);
    await putJob(dead.store, dead.scheduler, clock, { ...isolated, overlap: 'queue', schedule: { kind: 'every', every: '10m' } });
    await dead.scheduler.start();
    await live.scheduler.start();
    // the dead one wins the claim of the fire due at 10m, then never makes it
    clock.time = T0 + 10 * MIN;
    dead.scheduler.wake();
    await untilFired(fired, 1);
    await clock.set(T0 + 10 * MIN + 30_000, live.scheduler);
    expect(fired).toHaveLength(1);
    await clock.set(T0 + 11 * MIN, live.scheduler);
    expect(fired.map((f) => [(f.dueAt - T0) / MIN, f.runId])).toEqual([[10, fired[0]!.runId], [10, fired[0]!.runId]]);
    expect(await live.store.schedules.fires('job', 5)).toMatchObject([{ dueAt: T0 + 10 * MIN, outcome: 'dispatched' }]);
  });
});

describe('overlap: a fire while the previous run is unfinished', () => {
  it.each([
    ['skip', ['dispatched', 'skipped', 'dispatched'], 2],
    ['queue', ['dispatched', 'dispatched', 'dispatched'], 3],
  ] as const)('overlap "%s"', async (overlap, outcomes, runs) => {
    const clock = new TestClock(T0);
    const fired: Fired[] = [];
    let store: Store | undefined;
    const h = schedulerOn(path.join(tempDir(), 'herald.db'), clock, fired, { fire: insertsRun(() => store!) });
    store = h.store;
    await putJob(h.store, h.scheduler, clock, { ...isolated, overlap, schedule: { kind: 'every', every: '1m' } });
    await h.scheduler.start();
    await clock.set(T0 + MIN, h.scheduler);
    // the first run is still queued when the second fire comes
    await clock.set(T0 + 2 * MIN, h.scheduler);
    for (const f of fired) await h.store.runs.complete(f.runId!, { status: 'succeeded', reply: 'ok', at: clock.now(), transcript: [], summary: { session: 'main', text: 'done', maxPending: 100 } });
    // finished: the third fire runs whatever the overlap
    await clock.set(T0 + 3 * MIN, h.scheduler);
    const fires = (await h.store.schedules.fires('job', 5)).reverse();
    expect(fires.map((f) => f.outcome)).toEqual(outcomes);
    expect(fired).toHaveLength(runs);
    if (overlap === 'skip') expect(fires[1]!.detail).toBe('the previous run is still queued or running (overlap: skip)');
  });
});

describe('catchUp: fires due while herald was down', () => {
  it('true runs the missed fires once at start; false records them as missed; both keep their phase after', async () => {
    const file = path.join(tempDir(), 'herald.db');
    const clock = new TestClock(T0);
    const fired: Fired[] = [];
    const before = schedulerOn(file, clock, fired);
    await putJob(before.store, before.scheduler, clock, { id: 'late', catchUp: true, schedule: { kind: 'every', every: '10m' } });
    await putJob(before.store, before.scheduler, clock, { id: 'strict', catchUp: false, schedule: { kind: 'every', every: '10m' } });
    await before.scheduler.start();
    await before.scheduler.stop();
    // down from T0 to +35m: three fires of each were due (10m, 20m, 30m)
    clock.time = T0 + 35 * MIN;
    const after = schedulerOn(file, clock, fired);
    await after.scheduler.start();
    await clock.set(T0 + 35 * MIN, after.scheduler);
    expect(fired.map((f) => [f.id, (f.dueAt - T0) / MIN, (f.at - T0) / MIN])).toEqual([['late', 10, 35]]);
    expect(await after.store.schedules.fires('late', 5)).toMatchObject([{ dueAt: T0 + 10 * MIN, outcome: 'dispatched', detail: 'caught up at start' }]);
    expect(await after.store.schedules.fires('strict', 5)).toMatchObject([{ dueAt: T0 + 10 * MIN, outcome: 'missed', detail: 'due while herald was down; catchUp is false' }]);
    await clock.set(T0 + 40 * MIN, after.scheduler);
    expect(fired.slice(1).map((f) => [f.id, (f.dueAt - T0) / MIN]).sort()).toEqual([['late', 40], ['strict', 40]]);
  });
});
