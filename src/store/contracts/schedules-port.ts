import { scheduleJobSchema, type ScheduleJob } from '../../config/sections/schedules-schema.js';
import { HeraldError } from '../../errors.js';
import type { SystemEvent } from './events-port.js';
import type { ListQuery } from './operator-port.js';

/** a job of the config (written again at every start) or one made through /admin/schedules */
export type ScheduleOrigin = 'config' | 'api';

/** A job as the store keeps it, with the one due time it fires next (null: spent or none). */
export interface StoredSchedule {
  id: string;
  origin: ScheduleOrigin;
  job: ScheduleJob;
  enabled: boolean;
  /** epoch ms of the next fire; null when the job fires no more (a one-shot that fired) */
  nextDue: number | null;
  createdAt: number;
  updatedAt: number;
}

/** claimed: taken, its run or event not yet made; the others say what the fire became */
export type FireOutcome = 'claimed' | 'dispatched' | 'skipped' | 'missed' | 'failed';

/** One due time of one job: at most one row per (job, due time), whoever claimed it. */
export interface ScheduleFire {
  scheduleId: string;
  dueAt: number;
  /** when it was claimed */
  firedAt: number;
  outcome: FireOutcome;
  /** the run it made (isolated), chosen before the claim so a retaken fire makes the same run */
  runId: string | null;
  /** why it was skipped or failed, or which event it added */
  detail: string | null;
}

/** what `settleFireWithEvent` did */
export interface FireEvent {
  made: boolean;
  event?: SystemEvent;
}

/** the detail a main-session fire is marked with: the event it added */
export const eventDetail = (event: SystemEvent | undefined): string => (event ? `event ${event.id}` : 'event repeated the one before it');

/** the fires of every job, filtered as the receipts list is (newest due first, cursor on due time and job id) */
export interface FireQuery extends ListQuery {
  scheduleId?: string;
  outcome?: FireOutcome;
  runId?: string;
  /** only fires made more than this long after their due time (started late) */
  lateByMs?: number;
  /** only fires that did not run as due: `missed`, `skipped`, or made more than `lateByMs` late */
  notAsDue?: boolean;
}

export interface SchedulesRepo {
  /**
   * Inserts the job, or changes its definition and enabled state. `reschedule`: its next due time
   * becomes `nextDue` (a new schedule); otherwise a stored job keeps its own, so a restart or a
   * second replica writing the same config never moves a due time.
   */
  put(schedule: StoredSchedule, reschedule: boolean): Promise<StoredSchedule>;
  get(id: string): Promise<StoredSchedule | undefined>;
  /** by id */
  list(): Promise<StoredSchedule[]>;
  /** the job goes; its fires stay, as history */
  delete(id: string): Promise<boolean>;
  /** the earliest next due time of the enabled jobs */
  nextDue(): Promise<number | undefined>;
  /** enabled jobs due at or before `now`, earliest first */
  due(now: number, limit: number): Promise<StoredSchedule[]>;
  /**
   * The compare-and-set every fire goes through: moves the job's next due time from `expected` to
   * `next` and records `fire` for `expected`, in one transaction, only while the job is enabled
   * and its next due time still is `expected`. False when another claimer (a replica, a process
   * before a restart) or a change took it: of any number of claimers of one due time, one wins.
   */
  claimFire(id: string, expected: number, next: number | null, fire: Omit<ScheduleFire, 'scheduleId' | 'dueAt'>): Promise<boolean>;
  /** a fire made outside the schedule (an operator's run now): its due time is the moment asked; a repeat of one (job, due time) is dropped */
  recordFire(fire: ScheduleFire): Promise<boolean>;
  /** what a claimed fire became (only a fire still `claimed` changes) */
  settleFire(id: string, dueAt: number, outcome: Exclude<FireOutcome, 'claimed'>, detail?: string | null): Promise<boolean>;
  /**
   * Makes a claimed main-session fire: adds its event (the events repo's enqueue rules) and marks
   * the fire `dispatched`, its detail naming the event, in one commit, only while the fire is still
   * `claimed` (a detail it was claimed with, as `run now`, stays). A fire retaken after a crash therefore adds its event once: either the commit that
   * added it also marked the fire, or neither happened. `made: false` when the fire was not
   * claimed (another claimer made it, or it was settled): no event is added; `event` undefined
   * when the event repeated the pending one before it.
   */
  settleFireWithEvent(id: string, dueAt: number, event: { session: string; text: string; maxPending: number }): Promise<FireEvent>;
  /** a job's fires, newest due first */
  fires(id: string, limit: number): Promise<ScheduleFire[]>;
  /** the fires of every job (or one), newest due first, cursor-paginated like the receipts */
  listFires(query: FireQuery): Promise<ScheduleFire[]>;
  /** fires still `claimed` that were claimed at or before `before` (their claimer presumably died), oldest first */
  unsettled(before: number, limit: number): Promise<ScheduleFire[]>;
}

/** a schedules row as both adapters read it (enabled is 0/1 on SQLite, job a string there) */
export interface ScheduleRow {
  id: string;
  origin: ScheduleOrigin;
  job: string | object;
  enabled: number | boolean;
  next_due: number | string | null;
  created_at: number | string;
  updated_at: number | string;
}

export interface FireRow {
  schedule_id: string;
  due_at: number | string;
  fired_at: number | string;
  outcome: FireOutcome;
  run_id: string | null;
  detail: string | null;
}

/** a row another program wrote wrongly fails loudly, naming the job */
export function toSchedule(row: ScheduleRow): StoredSchedule {
  const parsed = scheduleJobSchema.safeParse(typeof row.job === 'string' ? JSON.parse(row.job) : row.job);
  if (!parsed.success) throw new HeraldError('HERALD_INTERNAL', `stored schedule ${row.id} has an invalid job (${parsed.error.issues.map((i) => i.path.join('.')).join(', ')})`);
  return {
    id: row.id,
    origin: row.origin,
    job: parsed.data,
    enabled: Boolean(row.enabled),
    nextDue: row.next_due === null ? null : Number(row.next_due),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

export const toFire = (row: FireRow): ScheduleFire => ({
  scheduleId: row.schedule_id,
  dueAt: Number(row.due_at),
  firedAt: Number(row.fired_at),
  outcome: row.outcome,
  runId: row.run_id,
  detail: row.detail,
});
