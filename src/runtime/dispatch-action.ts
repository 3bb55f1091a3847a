import type { MappingTraffic } from '../config/sections/traffic-schema.js';
import { HeraldError } from '../errors.js';
import type { AdmittedRun, IdempotencyRecord, RunAdmission } from '../store/port.js';
import { runAdmission } from './runs/run-admission.js';
import type { AgentAction, HookAction, WakeAction } from '../mappings/hook-action.js';
import type { ItemRefusal } from '../mappings/compiled-mapping.js';
import type { EventOutcome, FireEvent } from '../store/port.js';
import type { Heartbeat } from './heartbeat.js';
import type { MainSession } from './main-session.js';
import type { RunQueue } from './runs/run-queue.js';
import { copyWith } from '../utils/copy-with.js';
import { annotate } from '../tracing/tracing.js';
import type { RunCompletionReport } from './runs/run-completion-report.js';

export type DispatchResult = (
  | { status: 200; body: { ok: true; mode: string; eventOutcome?: EventOutcome; dispatched?: number; coalesced?: true } }
  | { status: 202; body: { ok: true; runId: string; runIds?: string[]; dispatched?: number; coalesced?: true; completion?: RunCompletionReport } }
) & {
  /** the idempotency key of `options.completes` is already completed with this answer */
  completed?: true;
  /** the system event a wake added (when it did not repeat the one before), for the request's receipt */
  eventId?: number;
  /** the run is a direct tool call (a mapping's `action: "tool"`), for the request's receipt */
  tool?: true;
  /** a schedule fire's wake (`options.fire`): whether it settled the fire, and the event it added */
  fire?: FireEvent;
};

/**
 * `options.runId`: the id an agent run gets, when the caller chose it beforehand.
 * `options.completes`: the idempotency key being processed; a wake completes it in the commit of its event.
 * `options.traffic`: what governs the run when it is not a mapping's (a scheduled job's concurrency and rate).
 * `options.fire`: the claimed schedule fire a wake settles, in the commit of its event (a fire retaken after a crash adds its event once).
 */
export type DispatchAction = (
  action: HookAction,
  options?: { runId?: string; completes?: { scope: string; key: string }; traffic?: MappingTraffic; fire?: { scheduleId: string; dueAt: number } },
) => Promise<DispatchResult>;

/**
 * Stores an ungoverned run (an agent run or a direct tool call that no mapping's traffic rule
 * governs) with the request's idempotency key, done with the run's 202, in one commit
 * (RunsRepo.insertKeyed), or a wake's event with its key, done with the wake's answer
 * (IdempotencyRepo.insertWithEvent). Undefined, with nothing stored, when the action is neither
 * or the key is held: the caller then claims the key as usual.
 */
export type DispatchKeyed = (action: HookAction, key: KeyedRequest) => Promise<DispatchResult | undefined> | undefined;

/** the key of a request whose run is stored with it: the record without its answer, which the run's id makes */
export type KeyedRequest = Omit<IdempotencyRecord, 'status' | 'responseStatus' | 'responseBody'>;

export interface DispatcherDeps {
  mainSession: MainSession;
  heartbeat: Pick<Heartbeat, 'request'>;
  runs: RunQueue;
  /** a mapping's concurrency, rate and coalescing, when it governs its runs */
  traffic?: (mappingId: string) => MappingTraffic | undefined;
  /** told how each governed run was admitted (metrics) */
  onAdmitted?: (mappingId: string, admitted: AdmittedRun) => void;
}

/** Carries out an action; everything it accepts is in the store before it returns. */
export function createDispatcher(deps: DispatcherDeps): DispatchAction {
  // not an async function: an ungoverned run (most hook runs) answers one promise after its insert's
  return function dispatchAction(action, options = {}) {
    if (action.kind === 'wake') return dispatchWake(deps, action, options);
    const admission = runAdmission(action, options.traffic ?? deps.traffic?.(action.source.mappingId));
    const tool = action.kind === 'tool';
    if (!admission) return deps.runs.submit(action, { id: options.runId }).then((runId) => (tool ? { status: 202, body: { ok: true, runId }, tool } : { status: 202, body: { ok: true, runId } }));
    return tool ? dispatchGoverned(deps, action, admission, options).then((result) => copyWith(result, { tool })) : dispatchGoverned(deps, action, admission, options);
  };
}

/** see DispatchKeyed */
export function createKeyedDispatcher(deps: Pick<DispatcherDeps, 'runs' | 'traffic' | 'mainSession' | 'heartbeat'>): DispatchKeyed {
  return function dispatchKeyed(action, key) {
    if (action.kind === 'wake') return dispatchKeyedWake(deps, action, key);
    if (deps.traffic?.(action.source.mappingId)) return undefined;
    const body = { ok: true as const, runId: key.runId };
    const record: IdempotencyRecord = { ...key, status: 'done', responseStatus: 202, responseBody: JSON.stringify(body) };
    return deps.runs.submit(action, { id: key.runId, key: record }).then((stored) => {
      if (stored === undefined) return undefined;
      const result: DispatchResult = { status: 202, body, completed: true };
      if (action.kind === 'tool') result.tool = true;
      return result;
    });
  };
}

/** a keyed wake: its event and its key, done with the answer dispatchWake gives, in one commit */
async function dispatchKeyedWake(deps: Pick<DispatcherDeps, 'mainSession' | 'heartbeat'>, action: WakeAction, key: KeyedRequest): Promise<DispatchResult | undefined> {
  const response = wakeResponse(action);
  const outcome = await deps.mainSession.enqueueSystemEventKeyed(action.text, key, response);
  if (outcome === undefined) return undefined;
  if (action.mode === 'now') deps.heartbeat.request();
  return copyWith(response(outcome), { completed: true as const });
}

/** OpenClaw's `eventOutcome`: `coalesced` when the event repeated the pending one before it */
const wakeResponse = (action: WakeAction) => (eventOutcome: EventOutcome) => ({ status: 200 as const, body: { ok: true as const, mode: action.mode, eventOutcome } });

type DispatchOptions = NonNullable<Parameters<DispatchAction>[1]>;

async function dispatchWake(deps: DispatcherDeps, action: WakeAction, options: DispatchOptions): Promise<DispatchResult> {
  const response = wakeResponse(action);
  if (options.fire) {
    const fire = await deps.mainSession.enqueueSystemEventForFire(action.text, options.fire);
    // another claimer made the fire: its wake was asked for there
    if (!fire.made) return copyWith(response('coalesced'), { fire });
    if (action.mode === 'now') deps.heartbeat.request();
    return copyWith(response(fire.event ? 'queued' : 'coalesced'), { fire });
  }
  if (options.completes) {
    const outcome = await deps.mainSession.enqueueSystemEventCompleting(action.text, options.completes, response);
    if (action.mode === 'now') deps.heartbeat.request();
    return copyWith(response(outcome), { completed: true as const });
  }
  const event = await deps.mainSession.enqueueSystemEvent(action.text);
  if (action.mode === 'now') deps.heartbeat.request();
  return event ? copyWith(response('queued'), { eventId: event.id }) : response('coalesced');
}

/** a governed mapping's run (its concurrency, rate, coalescing): admitted by the store, or refused */
async function dispatchGoverned(deps: DispatcherDeps, action: AgentAction, admission: RunAdmission, options: DispatchOptions): Promise<DispatchResult> {
  const admitted = await deps.runs.admit(action, admission, { id: options.runId });
  deps.onAdmitted?.(admission.mappingId, admitted);
  annotate({ 'herald.admission': admitted.type, 'herald.admission.waited_for': admitted.type === 'queued' ? admitted.waitedFor : undefined });
  if (admitted.type === 'rate-limited') {
    throw new HeraldError('HERALD_RATE_LIMITED', 'rate limited', { headers: { 'Retry-After': String(Math.max(1, Math.ceil(admitted.retryAfterMs / 1000))) } });
  }
  if (admitted.type === 'coalesced') return { status: 202, body: { ok: true, runId: admitted.runId, coalesced: true } };
  return { status: 202, body: { ok: true, runId: admitted.runId } };
}

/**
 * OpenClaw's answer to a batch not wholly admitted: the status of its first refusal, what did
 * start, and why the rest did not (at most five reasons); beside the answer, for the request's
 * receipt, every refused item and how many there were.
 */
export interface BatchRefusal {
  status: number;
  body: { ok: false; error: string; runIds: string[]; errors: string[] };
  refused: ItemRefusal[];
  total: number;
}

const MAX_BATCH_ERRORS = 5;

/**
 * The actions of a `forEach` mapping, in order. One action answers as a single one does; more
 * answer OpenClaw's batch shape: 202 `{ok, runId (the first), runIds, dispatched}` when any is an
 * agent run, else 200 `{ok, mode, dispatched}`. `runId`: the pre-chosen id goes to the first run.
 * Items refused (`batch.refused`, or by the dispatch: a rate limit) do not hold back the others;
 * the answer is then a BatchRefusal, each reason naming its item's index (`batch.indexes`).
 */
export async function dispatchAll(
  dispatch: DispatchAction,
  actions: HookAction[],
  options: Parameters<DispatchAction>[1] = {},
  batch: { indexes?: number[]; refused?: ItemRefusal[] } = {},
): Promise<DispatchResult | BatchRefusal> {
  const refused = [...(batch.refused ?? [])];
  // one action: exactly as a single one (its idempotency key may complete in the action's own commit)
  if (actions.length === 1 && !refused.length) return dispatch(actions[0]!, options);
  let first = true;
  const runIds: string[] = [];
  let mode = 'now';
  for (const [i, action] of actions.entries()) {
    const runId = action.kind === 'agent' && first ? options.runId : undefined;
    if (action.kind === 'agent') first = false;
    let result: DispatchResult;
    try {
      // no `completes`: the caller completes the key once, with the whole batch's answer
      result = await dispatch(action, { runId });
    } catch (error) {
      if (!(error instanceof HeraldError) || actions.length + refused.length === 1) throw error;
      refused.push({ index: batch.indexes?.[i] ?? i, error });
      continue;
    }
    if (result.status === 202) runIds.push(result.body.runId);
    else mode = result.body.mode;
  }
  const dispatched = actions.length + (batch.refused?.length ?? 0) - refused.length;
  if (refused.length) {
    refused.sort((a, b) => a.index - b.index);
    const total = dispatched + refused.length;
    return {
      status: refused[0]!.error.status,
      body: {
        ok: false,
        error: `hook fan-out incomplete: ${dispatched}/${total} dispatched, ${refused.length} failed`,
        runIds,
        errors: refused.slice(0, MAX_BATCH_ERRORS).map(({ index, error }) => `item ${index}: ${error.message}`),
      },
      refused,
      total,
    };
  }
  if (runIds.length) return { status: 202, body: { ok: true, runId: runIds[0]!, runIds, dispatched } };
  return { status: 200, body: { ok: true, mode, dispatched } };
}
