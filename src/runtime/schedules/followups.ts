import { parseDuration } from '../../config/sections/duration-schema.js';
import type { HeraldConfig } from '../../config/schema.js';
import { scheduleJobSchema, type ScheduleJob } from '../../config/sections/schedules-schema.js';
import type { RunRecord, Store, ToolCallOwner } from '../../store/port.js';
import type { Schedules } from './schedules.js';

/** what an agent asks of herald__schedule_followup */
export interface FollowupRequest {
  /** the tool call's record id: the same call made again (a resumed run) sets nothing more */
  id: string;
  owner?: { kind: ToolCallOwner; id: string };
  /** a duration from now ("2h"), or */
  in?: string;
  /** an ISO time with its offset */
  at?: string;
  message: string;
}

/** a follow-up refused: its message, naming the limit, is the tool error the model reads */
export class FollowupRefused extends Error {}

const DURATION = /^\d+(\.\d+)?(ms|s|m|h|d)$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

export interface FollowupsDeps {
  config: Pick<HeraldConfig, 'schedules'>;
  store: Pick<Store, 'runs' | 'schedules'>;
  schedules: Pick<Schedules, 'put'>;
  now?: () => number;
}

/**
 * The follow-ups agents set for themselves: each a one-shot job (`at`, isolated, deleted once it
 * fired) for the agent of the run that set it, in that run's session and delivered as that run
 * was, within `schedules.followups` (how many per run, how far ahead) and no nearer than
 * `schedules.minEvery` (so a chain of follow-ups cannot spin). A run's follow-ups take the ids
 * `followup-<run>-<k>`, k up to maxPerRun: the store's ids are the count, across processes.
 */
export class Followups {
  /** one run's calls one after another: parallel calls of a round count their slots in turn */
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(private readonly deps: FollowupsDeps) {}

  set(request: FollowupRequest): Promise<string> {
    const key = request.owner?.id ?? '';
    const next = (this.queues.get(key) ?? Promise.resolve()).catch(() => undefined).then(() => this.setNow(request));
    this.queues.set(key, next);
    void next.finally(() => this.queues.get(key) === next && this.queues.delete(key)).catch(() => undefined);
    return next;
  }

  private async setNow(request: FollowupRequest): Promise<string> {
    const { store, config } = this.deps;
    if (request.owner?.kind !== 'run') throw new FollowupRefused('a follow-up is set from a run (a hook\'s or a schedule\'s), not from a chat or a heartbeat: it is delivered as its run is');
    const run = await store.runs.get(request.owner.id);
    if (!run) throw new FollowupRefused(`run ${request.owner.id} is not in the store`);
    const now = (this.deps.now ?? Date.now)();
    const dueAt = this.dueAt(request, now);
    const { maxPerRun } = config.schedules.followups;
    const base = `followup-${run.id.replace(/[^A-Za-z0-9]/g, '').slice(0, 40)}-`;
    let free: string | undefined;
    for (let k = 1; k <= maxPerRun; k++) {
      const id = `${base}${k}`;
      const stored = await store.schedules.get(id);
      if (stored?.job.followUp?.callId === request.id) return answer(stored.job, stored.nextDue);
      // a slot is used while its job is stored, and after it fired (the job deleted, its fire kept)
      if (!free && !stored && !(await store.schedules.fires(id, 1)).length) free = id;
    }
    if (!free) throw new FollowupRefused(`this run has set ${maxPerRun} follow-up${maxPerRun === 1 ? '' : 's'} already, the most schedules.followups.maxPerRun allows`);
    const job = followupJob(free, run, request, dueAt);
    const stored = await this.deps.schedules.put(job, undefined);
    return answer(stored.job, stored.nextDue);
  }

  private dueAt(request: FollowupRequest, now: number): number {
    const { schedules } = this.deps.config;
    if ((request.in === undefined) === (request.at === undefined)) throw new FollowupRefused('give one of `in` (a duration from now, such as "2h") or `at` (an ISO time with its offset)');
    let dueAt: number;
    if (request.in !== undefined) {
      if (!DURATION.test(request.in)) throw new FollowupRefused(`in: "${request.in}" is not a duration such as 90s, 20m, 2h, 1d`);
      dueAt = now + parseDuration(request.in);
    } else {
      if (!ISO_TIME.test(request.at!) || Number.isNaN(Date.parse(request.at!))) throw new FollowupRefused(`at: "${request.at}" is not an ISO time with its offset, such as 2026-01-05T07:00:00+01:00`);
      dueAt = Date.parse(request.at!);
    }
    const minMs = parseDuration(schedules.minEvery);
    if (dueAt - now < minMs) throw new FollowupRefused(`a follow-up is set at least ${schedules.minEvery} ahead (schedules.minEvery)`);
    if (dueAt - now > parseDuration(schedules.followups.maxAhead)) throw new FollowupRefused(`a follow-up is set at most ${schedules.followups.maxAhead} ahead (schedules.followups.maxAhead)`);
    return dueAt;
  }
}

/** the job: the run's agent, model and session, its delivery, read as the run's content was */
function followupJob(id: string, run: RunRecord, request: FollowupRequest, dueAt: number): ScheduleJob {
  const { action } = run;
  return scheduleJobSchema.parse({
    id,
    name: `Follow-up of ${run.name}`.slice(0, 200),
    schedule: { kind: 'at', at: new Date(dueAt).toISOString() },
    sessionTarget: 'isolated',
    payload: {
      kind: 'agentTurn',
      message: request.message,
      agentId: run.agentId,
      ...(action.model && { model: action.model }),
      ...(action.thinking && { thinking: action.thinking }),
      ...(action.timeoutSeconds && { timeoutSeconds: action.timeoutSeconds }),
    },
    sessionKey: run.sessionKey,
    wakeMode: action.wakeMode,
    delivery: action.deliver ? { mode: 'announce', channel: action.channel, ...(action.to && { to: action.to }) } : { mode: 'none' },
    deleteAfterRun: true,
    followUp: { runId: run.id, callId: request.id, trusted: action.allowUnsafeExternalContent },
  });
}

const answer = (job: ScheduleJob, nextDue: number | null) => `follow-up ${job.id} set for ${nextDue === null ? 'never' : new Date(nextDue).toISOString()}`;
