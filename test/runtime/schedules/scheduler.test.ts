import path from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { scheduleJobSchema, type ScheduleJobInput } from '../../../src/config/schedules-schema.js';
import { Scheduler, type SchedulerClock } from '../../../src/runtime/schedules/scheduler.js';
import type { Store } from '../../../src/store/port.js';
import { openSqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import { tempDir } from '../../helpers/start-herald.js';

/** time the test moves: timers run when it passes their moment, never by sleeping */
class TestClock implements SchedulerClock {
  private timers: { at: number; fn: () => void }[] = [];
  constructor(public time: number) {}
  now = () => this.time;
  setTimer(fn: () => void, ms: number) {
    const timer = { at: this.time + ms, fn };
    this.timers.push(timer);
    return () => void (this.timers = this.timers.filter((t) => t !== timer));
  }
  /** moves to `at` (back as well as forward), running the timers whose moment came, in order */
  async set(at: number, scheduler: Scheduler) {
    this.time = at;
    for (;;) {
      await scheduler.settled();
      const due = this.timers.filter((t) => t.at <= this.time).sort((a, b) => a.at - b.at)[0];
      if (!due) return;
      this.timers = this.timers.filter((t) => t !== due);
      due.fn();
    }
  }
}

const stores: Store[] = [];
const schedulers: Scheduler[] = [];
afterEach(async () => {
  await Promise.all(schedulers.splice(0).map((s) => s.stop()));
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

function harness(file: string, clock: TestClock, fired: { id: string; dueAt: number; at: number }[]) {
  const store = openSqliteStore(file);
  stores.push(store);
  const scheduler = new Scheduler({
    store,
    logger: pino({ level: 'silent' }),
    missedAfterMs: 60_000,
    clock,
    fire: async (schedule, dueAt) => {
      fired.push({ id: schedule.id, dueAt, at: clock.now() });
      return {};
    },
  });
  schedulers.push(scheduler);
  return { store, scheduler };
}

const job = (input: Partial<ScheduleJobInput> & Pick<ScheduleJobInput, 'schedule'>) =>
  scheduleJobSchema.parse({ id: 'job', sessionTarget: 'main', payload: { kind: 'systemEvent', text: 'tick' }, ...input });

async function put(store: Store, scheduler: Scheduler, clock: TestClock, input: Parameters<typeof job>[0]) {
  const j = job(input);
  await store.schedules.put({ id: j.id, origin: 'config', job: j, enabled: true, nextDue: scheduler.firstDue(j), createdAt: clock.now(), updatedAt: clock.now() }, true);
}

const T0 = Date.parse('2026-01-05T00:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

describe('the scheduler, on a clock the test drives', () => {
  it('fires `every` on its phase across a restart: the fire due while down runs once at start', async () => {
    const file = path.join(tempDir(), 'herald.db');
    const clock = new TestClock(T0);
    const fired: { id: string; dueAt: number; at: number }[] = [];
    const first = harness(file, clock, fired);
    await put(first.store, first.scheduler, clock, { schedule: { kind: 'every', every: '1m' } });
    await first.scheduler.start();
    await clock.set(T0 + 59_000, first.scheduler);
    expect(fired).toEqual([]);
    await clock.set(T0 + 60_000, first.scheduler);
    await first.scheduler.stop();
    // down from +60s to +150s: the fire due at +120s runs once at start, then the phase holds
    clock.time = T0 + 150_000;
    const second = harness(file, clock, fired);
    await second.scheduler.start();
    await clock.set(T0 + 150_000, second.scheduler);
    await clock.set(T0 + 180_000, second.scheduler);
    await clock.set(T0 + 240_000, second.scheduler);
    expect(fired.map((f) => f.dueAt - T0)).toEqual([60_000, 120_000, 180_000, 240_000]);
    expect(fired[1]!.at - T0).toBe(150_000);
  });

  it('fires nothing twice when the clock steps back, and skips a missed fire when catchUp is false', async () => {
    const clock = new TestClock(T0);
    const fired: { id: string; dueAt: number; at: number }[] = [];
    const { store, scheduler } = harness(path.join(tempDir(), 'herald.db'), clock, fired);
    await put(store, scheduler, clock, { schedule: { kind: 'every', every: '1m' } });
    await put(store, scheduler, clock, { id: 'strict', catchUp: false, schedule: { kind: 'every', every: '10m' } });
    await scheduler.start();
    await clock.set(T0 + 60_000, scheduler);
    await clock.set(T0 - 3_600_000, scheduler);
    await clock.set(T0 + 60_000, scheduler);
    expect(fired.map((f) => f.dueAt - T0)).toEqual([60_000]);
    // the 10m job's fire found 5 minutes late: missed, recorded, not made
    await clock.set(T0 + 15 * 60_000, scheduler);
    expect(fired.filter((f) => f.id === 'strict')).toEqual([]);
    expect(await store.schedules.fires('strict', 5)).toMatchObject([{ dueAt: T0 + 600_000, outcome: 'missed' }]);
  });

  it('gives each due time to one of two schedulers sharing the store', async () => {
    const file = path.join(tempDir(), 'herald.db');
    const clock = new TestClock(T0);
    const fired: { id: string; dueAt: number; at: number }[] = [];
    const a = harness(file, clock, fired);
    const b = harness(file, clock, fired);
    await put(a.store, a.scheduler, clock, { schedule: { kind: 'every', every: '1m' } });
    await Promise.all([a.scheduler.start(), b.scheduler.start()]);
    for (let k = 1; k <= 5; k++) {
      clock.time = T0 + k * 60_000;
      a.scheduler.wake();
      b.scheduler.wake();
      await Promise.all([a.scheduler.settled(), b.scheduler.settled()]);
    }
    expect(fired.map((f) => f.dueAt - T0)).toEqual([1, 2, 3, 4, 5].map((k) => k * 60_000));
  });

  it.each([
    // 02:30 does not exist in Berlin on 2025-03-30: it fires at 03:30 CEST, the first moment after the gap
    ['Europe/Berlin', '30 2 * * *', '2025-03-28T12:00:00Z', ['2025-03-29T01:30:00.000Z', '2025-03-30T01:30:00.000Z', '2025-03-31T00:30:00.000Z']],
    // 01:30 happens twice in New York on 2025-11-02: it fires once, at the first (EDT)
    ['America/New_York', '30 1 * * *', '2025-11-01T12:00:00Z', ['2025-11-02T05:30:00.000Z', '2025-11-03T06:30:00.000Z', '2025-11-04T06:30:00.000Z']],
  ])('fires a cron job across the daylight-saving change in %s', async (tz, expr, from, expected) => {
    const clock = new TestClock(Date.parse(from));
    const fired: { id: string; dueAt: number; at: number }[] = [];
    const { store, scheduler } = harness(path.join(tempDir(), 'herald.db'), clock, fired);
    await put(store, scheduler, clock, { schedule: { kind: 'cron', expr, tz } });
    await scheduler.start();
    for (const at of expected) await clock.set(Date.parse(at), scheduler);
    expect(fired.map((f) => iso(f.dueAt))).toEqual(expected);
  });
});
