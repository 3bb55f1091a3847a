import { Cron } from 'croner';
import { parseDuration } from '../../config/sections/duration-schema.js';
import { CRON_OPTIONS, type ScheduleJob } from '../../config/sections/schedules-schema.js';
import { isIsoAt } from '../../config/checks/schedules-checks.js';

/** a random delay up to the job's jitter (`random` in [0, 1), injected by tests) */
function jitterMs(job: ScheduleJob, random: () => number): number {
  const max = parseDuration(job.jitter);
  return max ? Math.floor(random() * max) : 0;
}

/** the first instant after `after` that the cron expression names, in its time zone (croner handles daylight saving) */
export function nextCron(expr: string, tz: string | undefined, after: number): number | null {
  const next = new Cron(expr, { paused: true, ...CRON_OPTIONS, ...(tz && { timezone: tz }) }).nextRun(new Date(after));
  return next ? next.getTime() : null;
}

/**
 * The first due time of a job stored at `now`. `every` is anchored to that moment: its fires are
 * `anchor + k * every`, so neither a restart nor a late fire shifts its phase.
 */
export function firstDue(job: ScheduleJob, now: number, random: () => number = Math.random): number | null {
  const { schedule } = job;
  const base =
    schedule.kind === 'at' ? (isIsoAt(schedule.at) ? Date.parse(schedule.at) : now + parseDuration(schedule.at))
    : schedule.kind === 'every' ? now + parseDuration(schedule.every)
    : nextCron(schedule.expr, schedule.tz, now);
  return base === null ? null : base + jitterMs(job, random);
}

/**
 * The due time after the one fired, the first after `after`: the fired due time itself when the
 * fire is on time or a little late, so a pass that lagged (a busy process, a replica's start)
 * still makes every due time, one after another; the moment of the fire when it was missed
 * (past schedules.missedAfter: herald was down), so the fires missed collapse into the one being
 * made. Either way it is later than the due time fired, so no due time is fired twice, even on a
 * clock stepped back. Null: the job fires no more (a one-shot).
 */
export function dueAfter(job: ScheduleJob, anchor: number, after: number, random: () => number = Math.random): number | null {
  const { schedule } = job;
  if (schedule.kind === 'at') return null;
  let base: number | null;
  if (schedule.kind === 'every') {
    const every = parseDuration(schedule.every);
    base = anchor + (Math.floor(Math.max(0, after - anchor) / every) + 1) * every;
  } else base = nextCron(schedule.expr, schedule.tz, after);
  return base === null ? null : base + jitterMs(job, random);
}
