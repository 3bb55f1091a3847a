import pino from 'pino';
import { scheduleJobSchema, type ScheduleJobInput } from '../../src/config/sections/schedules-schema.js';
import { Scheduler, type FireJob, type SchedulerClock } from '../../src/runtime/schedules/scheduler.js';
import type { Store } from '../../src/store/port.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';

/** time the test moves: timers run when it passes their moment, never by sleeping */
export class TestClock implements SchedulerClock {
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

export interface Fired {
  id: string;
  dueAt: number;
  at: number;
  runId: string | null;
}

/** what the tests close after each case */
export const opened: { stores: Store[]; schedulers: Scheduler[] } = { stores: [], schedulers: [] };

export async function closeOpened(): Promise<void> {
  await Promise.all(opened.schedulers.splice(0).map((s) => s.stop()));
  await Promise.all(opened.stores.splice(0).map((s) => s.close()));
}

/**
 * A scheduler on a SQLite file and the test's clock; each fire is listed in `fired`, then made by
 * `fire` when given (a run inserted, a fire that never ends as a process killed mid-fire would).
 * `track: false` leaves it out of closeOpened (a scheduler whose process "died" is never stopped).
 */
export function schedulerOn(file: string, clock: TestClock, fired: Fired[], options: { fire?: FireJob; track?: boolean } = {}) {
  const store = openSqliteStore(file);
  const scheduler = new Scheduler({
    store,
    logger: pino({ level: 'silent' }),
    missedAfterMs: 60_000,
    clock,
    fire: async (schedule, dueAt, runId) => {
      fired.push({ id: schedule.id, dueAt, at: clock.now(), runId });
      return options.fire ? options.fire(schedule, dueAt, runId) : {};
    },
  });
  if (options.track !== false) {
    opened.stores.push(store);
    opened.schedulers.push(scheduler);
  }
  return { store, scheduler };
}

export const job = (input: Partial<ScheduleJobInput> & Pick<ScheduleJobInput, 'schedule'>) =>
  scheduleJobSchema.parse({ id: 'job', sessionTarget: 'main', payload: { kind: 'systemEvent', text: 'tick' }, ...input });

/** stores a job as the config's start does: its first due time from the clock's now */
export async function putJob(store: Store, scheduler: Scheduler, clock: TestClock, input: Parameters<typeof job>[0]) {
  const j = job(input);
  await store.schedules.put({ id: j.id, origin: 'config', job: j, enabled: true, nextDue: scheduler.firstDue(j), createdAt: clock.now(), updatedAt: clock.now() }, true);
}
