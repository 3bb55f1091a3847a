import type { Logger } from 'pino';
import type { ScheduleJob } from '../../config/sections/schedules-schema.js';
import type { Store, StoredSchedule } from '../../store/port.js';
import { uuidV7 } from '../../time/uuid-v7.js';
import { dueAfter, firstDue } from './next-due.js';
import { WorkLoop } from '../work/work-loop.js';
import { carryOutFire, type FireMade } from './carry-out-fire.js';

/** wall-clock time and one timer: injected, so tests drive time instead of sleeping */
export interface SchedulerClock {
  now(): number;
  setTimer(fn: () => void, ms: number): () => void;
}

export const systemClock: SchedulerClock = {
  now: () => Date.now(),
  setTimer(fn, ms) {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};

/** what a claimed fire makes: a run (isolated, under the id chosen before the claim) or a main-session event */
export type FireJob = (schedule: StoredSchedule, dueAt: number, runId: string | null) => Promise<FireMade>;

export interface SchedulerDeps {
  store: Pick<Store, 'schedules' | 'runs'>;
  fire: FireJob;
  logger: Logger;
  /** a fire found this long past its due time was missed (see the job's catchUp) */
  missedAfterMs: number;
  /** a fire claimed this long ago and still not made was left by a claimer that died (schedules.retakeAfter) */
  retakeAfterMs?: number;
  clock?: SchedulerClock;
  random?: () => number;
  /** told of every fire's outcome (metrics) */
  onFired?: (scheduleId: string, outcome: 'dispatched' | 'skipped' | 'missed' | 'failed', lagMs: number) => void;
}

/** the longest the one timer sleeps: a wall clock stepped forward is noticed within it */
const MAX_SLEEP_MS = 60_000;
/** how many due jobs one pass claims before looking again */
const BATCH = 100;
/** schedules.retakeAfter's default */
const RETAKE_AFTER_MS = 60_000;

const unfinished = new Set(['queued', 'running', 'waiting_approval']);

/**
 * Fires the stored jobs, exactly once per due time whatever the number of processes: one timer per
 * process, set for the earliest due time in the store (woken early by `wake()` when jobs change);
 * each due job is claimed by the store's compare-and-set on its next due time, and only the claimer
 * that moved it makes the run or event.
 */
export class Scheduler {
  private readonly clock: SchedulerClock;
  private readonly random: () => number;
  private cancelTimer: (() => void) | undefined;
  /** jobs changed (here or on another process): one pass at a time looks at the store again */
  private readonly passes = new WorkLoop({
    pass: () => this.pass(),
    failed: (err) => this.deps.logger.error({ err }, 'schedules: a pass failed; the next wake tries again'),
  });
  private stopped = true;
  private lastRetake = 0;

  constructor(private readonly deps: SchedulerDeps) {
    this.clock = deps.clock ?? systemClock;
    this.random = deps.random ?? Math.random;
  }

  /** `retakeAll`: this process serves the store alone, so every claimed-but-not-dispatched fire is a dead predecessor's */
  async start(retakeAll = false): Promise<void> {
    this.stopped = false;
    this.lastRetake = this.clock.now();
    await this.retake(retakeAll ? this.lastRetake : this.lastRetake - this.retakeAfterMs);
    this.passes.start();
  }

  /** jobs changed (here or on another process): look at the store again now */
  wake(): void {
    this.passes.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelTimer?.();
    await this.passes.stop();
  }

  /** resolves when the passes asked for so far are done (tests) */
  settled(): Promise<void> {
    return this.passes.settled();
  }

  /** the first due time of a job stored at `now` (its `every` anchor: the two must be one instant) */
  firstDue(job: ScheduleJob, now = this.clock.now()): number | null {
    return firstDue(job, now, this.random);
  }

  private get retakeAfterMs(): number {
    return this.deps.retakeAfterMs ?? RETAKE_AFTER_MS;
  }

  private async pass(): Promise<void> {
    if (this.stopped) return;
    // a replica that died mid-fire leaves its fire claimed: the live ones look for such fires twice per retakeAfter
    const now = this.clock.now();
    if (now - this.lastRetake >= this.retakeAfterMs / 2 || now < this.lastRetake) {
      this.lastRetake = now;
      await this.retake(now - this.retakeAfterMs);
    }
    for (;;) {
      const now = this.clock.now();
      const due = await this.deps.store.schedules.due(now, BATCH);
      // a batch's fires are of different jobs, each claimed on its own: made together, their
      // writes share the store's group commits instead of waiting for one commit each in turn
      const failed = (await Promise.allSettled(due.map((schedule) => this.fireOne(schedule, now)))).find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
      if (due.length < BATCH) break;
    }
    await this.arm();
  }

  private async arm(): Promise<void> {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    if (this.stopped) return;
    const next = await this.deps.store.schedules.nextDue();
    const wait = Math.min(MAX_SLEEP_MS, this.retakeAfterMs / 2, next === undefined ? Infinity : Math.max(0, next - this.clock.now()));
    this.cancelTimer = this.clock.setTimer(() => this.wake(), wait);
  }

  private async fireOne(schedule: StoredSchedule, now: number): Promise<void> {
    const { store, logger } = this.deps;
    const { job, id } = schedule;
    const dueAt = schedule.nextDue!;
    const missed = now - dueAt > this.deps.missedAfterMs;
    const next = dueAfter(job, schedule.createdAt, missed ? now : dueAt, this.random);
    const claim = (outcome: 'claimed' | 'skipped' | 'missed', runId: string | null, detail: string | null) =>
      store.schedules.claimFire(id, dueAt, next, { firedAt: now, outcome, runId, detail });
    if (missed && !job.catchUp) {
      if (await claim('missed', null, 'due while herald was down; catchUp is false')) this.told(id, 'missed', now - dueAt);
      return;
    }
    if (job.sessionTarget === 'isolated' && job.overlap === 'skip' && (await this.stillRunning(id))) {
      if (await claim('skipped', null, 'the previous run is still queued or running (overlap: skip)')) this.told(id, 'skipped', now - dueAt);
      return;
    }
    const runId = job.sessionTarget === 'isolated' ? uuidV7() : null;
    if (!(await claim('claimed', runId, missed ? 'caught up at start' : null))) return;
    await this.dispatch(schedule, dueAt, runId, now);
    if (next === null && job.deleteAfterRun && schedule.origin === 'api') await store.schedules.delete(id);
    logger.info({ schedule: id, dueAt: new Date(dueAt).toISOString(), runId, next: next && new Date(next).toISOString() }, 'schedule fired');
  }

  private async dispatch(schedule: StoredSchedule, dueAt: number, runId: string | null, now: number): Promise<void> {
    const done = await carryOutFire(this.deps.store, schedule.id, dueAt, () => this.deps.fire(schedule, dueAt, runId));
    // its maker told of it
    if (done.outcome === 'taken') return;
    if (done.outcome === 'failed') this.deps.logger.error({ err: done.error, schedule: schedule.id }, 'schedule fire failed');
    this.told(schedule.id, done.outcome, now - dueAt);
  }

  private told(id: string, outcome: 'dispatched' | 'skipped' | 'missed' | 'failed', lagMs: number): void {
    this.deps.onFired?.(id, outcome, lagMs);
  }

  private async stillRunning(id: string): Promise<boolean> {
    const [last] = await this.deps.store.schedules.fires(id, 5).then((fires) => fires.filter((f) => f.runId));
    if (!last?.runId) return false;
    const run = await this.deps.store.runs.get(last.runId);
    return run !== undefined && unfinished.has(run.status);
  }

  /**
   * Fires claimed by a process that died before making their run or event: a run is made under the
   * id chosen at the claim unless it exists already (then the fire is only marked), so a retaken
   * fire never makes a second run. A main-session event is added in the commit that marks its
   * fire, so a fire still claimed has added none, and one retaken twice adds one.
   */
  private async retake(before: number): Promise<void> {
    const { store, logger } = this.deps;
    for (const fire of await store.schedules.unsettled(before, BATCH)) {
      const schedule = await store.schedules.get(fire.scheduleId);
      if (fire.runId && (await store.runs.get(fire.runId))) {
        await store.schedules.settleFire(fire.scheduleId, fire.dueAt, 'dispatched');
        continue;
      }
      if (!schedule) {
        await store.schedules.settleFire(fire.scheduleId, fire.dueAt, 'failed', 'the job was deleted before its fire was made');
        continue;
      }
      logger.warn({ schedule: fire.scheduleId, dueAt: new Date(fire.dueAt).toISOString() }, 'schedule: a fire claimed by a process that stopped is made now');
      await this.dispatch(schedule, fire.dueAt, fire.runId, this.clock.now());
    }
  }
}
