import type { Logger } from 'pino';
import { parseDuration } from '../../config/sections/duration-schema.js';
import type { HeraldConfig } from '../../config/schema.js';
import type { ScheduleJob } from '../../config/sections/schedules-schema.js';
import type { AgentAction } from '../../mappings/hook-action.js';
import type { ScheduleFire, Store, StoredSchedule } from '../../store/port.js';
import { eventDetail } from '../../store/contracts/schedules-port.js';
import { uuidV7 } from '../../time/uuid-v7.js';
import { HeraldError } from '../../errors.js';
import type { DispatchAction } from '../dispatch-action.js';
import { carryOutFire, type FireMade } from './carry-out-fire.js';
import { deliveryChannel } from './schedule-targets.js';
import { Scheduler, type SchedulerClock } from './scheduler.js';

/** the store signal that says jobs changed: every process's scheduler looks again */
export const SCHEDULES_TOPIC = 'schedules';

export interface SchedulesDeps {
  config: Pick<HeraldConfig, 'schedules'>;
  store: Store;
  /** the dispatcher of hook actions: a fire's run is admitted as a governed mapping's is (the job's concurrency and rate) */
  dispatch: DispatchAction;
  defaultAgentId: string;
  logger: Logger;
  clock?: SchedulerClock;
  random?: () => number;
  /** told of every fire's outcome (metrics); `lagMs` undefined for a run now */
  onFired?: (scheduleId: string, outcome: 'dispatched' | 'skipped' | 'missed' | 'failed', lagMs?: number) => void;
}

/** the run a fire of an isolated job makes: its own session (`cron:<id>`), delivered as the job says */
export function scheduleAction(job: ScheduleJob, dueAt: number, defaultAgentId: string): AgentAction {
  if (job.payload.kind === 'toolCall') return scheduleToolAction(job, job.payload, dueAt, defaultAgentId);
  if (job.payload.kind !== 'agentTurn') throw new Error(`schedule ${job.id}: not an agentTurn`);
  const { payload } = job;
  return {
    kind: 'agent',
    message: payload.message,
    name: job.name ?? `Cron ${job.id}`,
    agentId: payload.agentId ?? defaultAgentId,
    sessionKey: job.sessionKey ?? `cron:${job.id}`,
    wakeMode: job.wakeMode,
    deliver: job.delivery.mode !== 'none',
    channel: deliveryChannel(job) ?? 'last',
    ...(job.delivery.to && { to: job.delivery.to }),
    ...(payload.model && { model: payload.model }),
    ...(payload.thinking && { thinking: payload.thinking }),
    ...(payload.timeoutSeconds && { timeoutSeconds: payload.timeoutSeconds }),
    ...(job.delivery.retry && { retry: job.delivery.retry }),
    ...(job.delivery.fallback && { fallback: job.delivery.fallback }),
    // the operator's own words, not outside content: no safety wrapper; a follow-up is read as the run that set it was
    allowUnsafeExternalContent: job.followUp?.trusted ?? true,
    source: { mappingId: `schedule:${job.id}`, path: 'schedule' },
    schedule: { id: job.id, dueAt },
  };
}

/**
 * The run a fire of a `toolCall` job makes: one tool called directly, no model asked. The job is
 * the operator's own config, so its call is not over outside content: a write runs without a
 * person unless `requireApproval` (the payload's, or its server's) says so. Its result, made into
 * `then.message`, goes where the job delivers (or then.channel); without `then` nothing is delivered.
 */
function scheduleToolAction(job: ScheduleJob, payload: Extract<ScheduleJob['payload'], { kind: 'toolCall' }>, dueAt: number, defaultAgentId: string): AgentAction {
  const { then } = payload;
  return {
    kind: 'tool',
    message: `${payload.tool} ${JSON.stringify(payload.arguments)}`.slice(0, 4000),
    name: job.name ?? `Cron ${job.id}`,
    agentId: defaultAgentId,
    sessionKey: job.sessionKey ?? `cron:${job.id}`,
    // a heartbeat asks a model: only when then says so
    wakeMode: then?.wakeMode ?? 'next-heartbeat',
    deliver: then !== undefined && job.delivery.mode !== 'none',
    channel: then?.channel ?? deliveryChannel(job) ?? 'last',
    ...((then?.to ?? job.delivery.to) && { to: then?.to ?? job.delivery.to }),
    ...(then?.threadId && { threadId: then.threadId }),
    ...(payload.retry && { retry: payload.retry }),
    ...(job.delivery.fallback && { fallback: job.delivery.fallback }),
    call: { tool: payload.tool, arguments: payload.arguments, outside: false, ...(then && { then: { message: then.message } }), ...(payload.timeoutSeconds && { timeoutSeconds: payload.timeoutSeconds }) },
    ...(payload.requireApproval && { tools: { requireApproval: payload.requireApproval } }),
    allowUnsafeExternalContent: true,
    source: { mappingId: `schedule:${job.id}`, path: 'schedule' },
    schedule: { id: job.id, dueAt },
  };
}

/**
 * The jobs of the config and of the admin API, and the scheduler firing them. Config jobs are
 * written to the store at every start (a stored job of the same id is replaced: the config wins);
 * a config job no longer in the config is deleted.
 */
export class Schedules {
  readonly scheduler: Scheduler;
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly deps: SchedulesDeps) {
    this.scheduler = new Scheduler({
      store: deps.store,
      logger: deps.logger,
      missedAfterMs: parseDuration(deps.config.schedules.missedAfter),
      retakeAfterMs: parseDuration(deps.config.schedules.retakeAfter),
      clock: deps.clock,
      random: deps.random,
      onFired: deps.onFired,
      fire: (schedule, dueAt, runId) => this.fire(schedule.id, schedule.job, dueAt, runId),
    });
  }

  async start(): Promise<void> {
    await this.syncConfigJobs();
    this.unsubscribe = this.deps.store.signals.subscribe(SCHEDULES_TOPIC, () => this.scheduler.wake());
    await this.scheduler.start(await this.deps.store.serveAlone());
  }

  /** after a config reload: the config's jobs written again (added, changed, removed), every scheduler woken */
  async reconfigure(): Promise<void> {
    await this.syncConfigJobs();
    this.changed();
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    await this.scheduler.stop();
  }

  list(): Promise<StoredSchedule[]> {
    return this.deps.store.schedules.list();
  }

  get(id: string): Promise<StoredSchedule | undefined> {
    return this.deps.store.schedules.get(id);
  }

  fires(id: string, limit: number): Promise<ScheduleFire[]> {
    return this.deps.store.schedules.fires(id, limit);
  }

  /** stores a job made at run time (new, or changed: a changed schedule is due anew), then wakes every scheduler */
  async put(job: ScheduleJob, existing: StoredSchedule | undefined): Promise<StoredSchedule> {
    const now = this.now();
    const reschedule = !existing || JSON.stringify(existing.job.schedule) !== JSON.stringify(job.schedule) || existing.job.jitter !== job.jitter || (!existing.enabled && job.enabled);
    const stored = await this.deps.store.schedules.put(
      { id: job.id, origin: 'api', job, enabled: job.enabled, nextDue: reschedule ? this.scheduler.firstDue(job, now) : (existing?.nextDue ?? null), createdAt: existing?.createdAt ?? now, updatedAt: now },
      reschedule,
    );
    this.changed();
    return stored;
  }

  async remove(id: string): Promise<boolean> {
    const removed = await this.deps.store.schedules.delete(id);
    if (removed) this.changed();
    return removed;
  }

  /** an operator's run now: a fire of its own (due now), beside the schedule, which it does not move */
  async runNow(schedule: StoredSchedule): Promise<ScheduleFire> {
    const now = this.now();
    const runId = schedule.job.sessionTarget === 'isolated' ? uuidV7() : null;
    const fire: ScheduleFire = { scheduleId: schedule.id, dueAt: now, firedAt: now, outcome: 'claimed', runId, detail: 'run now' };
    await this.deps.store.schedules.recordFire(fire);
    const done = await carryOutFire(this.deps.store, schedule.id, now, () => this.fire(schedule.id, schedule.job, now, runId));
    if (done.outcome === 'taken') return { ...fire, outcome: 'dispatched' };
    this.deps.onFired?.(schedule.id, done.outcome);
    if (done.outcome === 'failed') throw done.error;
    return { ...fire, outcome: done.outcome, ...(done.skipped && { detail: done.skipped }) };
  }

  private now(): number {
    return (this.deps.clock ?? { now: Date.now }).now();
  }

  private changed(): void {
    this.deps.store.signals.publish(SCHEDULES_TOPIC);
  }

  private async fire(scheduleId: string, job: ScheduleJob, dueAt: number, runId: string | null): Promise<FireMade> {
    if (job.payload.kind === 'systemEvent') {
      // a wake as a hook's, its heartbeat by the same rule; the event and the fire's mark in one commit
      const { fire } = await this.deps.dispatch({ kind: 'wake', text: job.payload.text, mode: job.wakeMode }, { fire: { scheduleId, dueAt } });
      if (!fire?.made) return { settled: 'taken' };
      return { settled: 'made', detail: eventDetail(fire.event) };
    }
    const { concurrency, rate } = job;
    const traffic = concurrency !== undefined || rate ? { concurrency, rate } : undefined;
    try {
      await this.deps.dispatch(scheduleAction(job, dueAt, this.deps.defaultAgentId), { runId: runId ?? undefined, traffic });
      return {};
    } catch (error) {
      // the job's rate with overflow reject: this fire makes no run, as an overlap skip makes none
      if (error instanceof HeraldError && error.code === 'HERALD_RATE_LIMITED') return { skipped: 'rate limited (the job\'s rate, overflow: reject)' };
      throw error;
    }
  }

  private async syncConfigJobs(): Promise<void> {
    const { store, logger, config } = this.deps;
    const now = this.now();
    const configured = new Set<string>();
    for (const job of config.schedules.jobs) {
      configured.add(job.id);
      const existing = await store.schedules.get(job.id);
      if (existing?.origin === 'api') logger.warn({ schedule: job.id }, `schedules: config job "${job.id}" replaces the stored job of the same id (the config wins)`);
      const same = existing?.origin === 'config' && JSON.stringify(existing.job.schedule) === JSON.stringify(job.schedule) && existing.job.jitter === job.jitter;
      const reschedule = !same || (!existing.enabled && job.enabled);
      const createdAt = existing?.origin === 'config' ? existing.createdAt : now;
      // a new job's first due time and its anchor (createdAt) are one instant, read before the store was asked
      const nextDue = reschedule ? this.scheduler.firstDue(job, now) : existing.nextDue;
      if (!existing && job.schedule.kind === 'at' && nextDue !== null && nextDue <= now) {
        logger.warn({ schedule: job.id }, `schedules: config job "${job.id}" is due at ${job.schedule.at}, already past; it does not fire`);
        await store.schedules.put({ id: job.id, origin: 'config', job, enabled: job.enabled, nextDue: null, createdAt: now, updatedAt: now }, true);
        continue;
      }
      await store.schedules.put({ id: job.id, origin: 'config', job, enabled: job.enabled, nextDue, createdAt, updatedAt: now }, reschedule);
    }
    for (const stored of await store.schedules.list()) {
      if (stored.origin === 'config' && !configured.has(stored.id)) await store.schedules.delete(stored.id);
    }
  }
}
