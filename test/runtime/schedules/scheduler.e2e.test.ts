import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closeOpened, putJob, schedulerOn, TestClock, type Fired } from '../../helpers/scheduler-clock.js';
import { tempDir } from '../../helpers/start-herald.js';

afterEach(closeOpened);

const T0 = Date.parse('2026-01-05T00:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

describe('the scheduler, on a clock the test drives', () => {
  it('fires `every` on its phase across a restart: the fire due while down runs once at start', async () => {
    const file = path.join(tempDir(), 'herald.db');
    const clock = new TestClock(T0);
    const fired: Fired[] = [];
    const first = schedulerOn(file, clock, fired);
    await putJob(first.store, first.scheduler, clock, { schedule: { kind: 'every', every: '1m' } });
    await first.scheduler.start();
    await clock.set(T0 + 59_000, first.scheduler);
    expect(fired).toEqual([]);
    await clock.set(T0 + 60_000, first.scheduler);
    await first.scheduler.stop();
    // down from +60s to +150s: the fire due at +120s runs once at start, then the phase holds
    clock.time = T0 + 150_000;
    const second = schedulerOn(file, clock, fired);
    await second.scheduler.start();
    await clock.set(T0 + 150_000, second.scheduler);
    await clock.set(T0 + 180_000, second.scheduler);
    await clock.set(T0 + 240_000, second.scheduler);
    expect(fired.map((f) => f.dueAt - T0)).toEqual([60_000, 120_000, 180_000, 240_000]);
    expect(fired[1]!.at - T0).toBe(150_000);
  });

  it('fires nothing twice when the clock steps back, and skips a missed fire when catchUp is false', async () => {
    const clock = new TestClock(T0);
    const fired: Fired[] = [];
    const { store, scheduler } = schedulerOn(path.join(tempDir(), 'herald.db'), clock, fired);
    await putJob(store, scheduler, clock, { schedule: { kind: 'every', every: '1m' } });
    await putJob(store, scheduler, clock, { id: 'strict', catchUp: false, schedule: { kind: 'every', every: '10m' } });
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
    const fired: Fired[] = [];
    const a = schedulerOn(file, clock, fired);
    const b = schedulerOn(file, clock, fired);
    await putJob(a.store, a.scheduler, clock, { schedule: { kind: 'every', every: '1m' } });
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
    // 02:30 happens twice in Berlin on 2025-10-26 (CEST, then CET): it fires once, at the first (CEST), as in New York
    ['Europe/Berlin', '30 2 * * *', '2025-10-24T12:00:00Z', ['2025-10-25T00:30:00.000Z', '2025-10-26T00:30:00.000Z', '2025-10-27T01:30:00.000Z']],
    // hourly across Berlin's fall-back: each wall-clock hour once, so the repeated 02:00 (01:00Z, CET) does not fire
    ['Europe/Berlin', '0 * * * *', '2025-10-25T23:30:00Z', ['2025-10-26T00:00:00.000Z', '2025-10-26T02:00:00.000Z', '2025-10-26T03:00:00.000Z']],
    // 02:30 does not exist in New York on 2025-03-09: it fires at 03:30 EDT
    ['America/New_York', '30 2 * * *', '2025-03-07T12:00:00Z', ['2025-03-08T07:30:00.000Z', '2025-03-09T07:30:00.000Z', '2025-03-10T06:30:00.000Z']],
    // 01:30 happens twice in New York on 2025-11-02: it fires once, at the first (EDT)
    ['America/New_York', '30 1 * * *', '2025-11-01T12:00:00Z', ['2025-11-02T05:30:00.000Z', '2025-11-03T06:30:00.000Z', '2025-11-04T06:30:00.000Z']],
    // hourly across New York's fall-back: each wall-clock hour once, so the repeated 01:00 (06:00Z, EST) does not fire
    ['America/New_York', '0 * * * *', '2025-11-02T03:30:00Z', ['2025-11-02T04:00:00.000Z', '2025-11-02T05:00:00.000Z', '2025-11-02T07:00:00.000Z', '2025-11-02T08:00:00.000Z']],
    // hourly across Berlin's spring-forward: 02:00 does not exist on 2025-03-30, 01:00Z is 03:00 CEST
    ['Europe/Berlin', '0 * * * *', '2025-03-29T23:30:00Z', ['2025-03-30T00:00:00.000Z', '2025-03-30T01:00:00.000Z', '2025-03-30T02:00:00.000Z']],
  ])('fires a cron job across the daylight-saving change in %s', async (tz, expr, from, expected) => {
    const clock = new TestClock(Date.parse(from));
    const fired: Fired[] = [];
    const { store, scheduler } = schedulerOn(path.join(tempDir(), 'herald.db'), clock, fired);
    await putJob(store, scheduler, clock, { schedule: { kind: 'cron', expr, tz } });
    await scheduler.start();
    for (const at of expected) await clock.set(Date.parse(at), scheduler);
    expect(fired.map((f) => iso(f.dueAt))).toEqual(expected);
  });
});
