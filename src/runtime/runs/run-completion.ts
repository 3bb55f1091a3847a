import type { AgentAction } from '../../mappings/hook-action.js';
import { annotate, tracingOn } from '../../tracing/tracing.js';
import type { RunCompleted, RunCompletion, RunRecord, SessionMessage } from '../../store/port.js';
import { MAIN_SESSION, MAX_PENDING_EVENTS } from '../main-session.js';
import { answeredInResponse, replyDisposition } from '../delivery/reply-delivery.js';
import { runSummary } from '../summary.js';
import type { RunContext } from './run-context.js';
import type { ChainPlace } from './session-chain.js';
import { copyWith } from '../../utils/copy-with.js';

/** the runs a completion claimed into the place its run leaves, with their session's history when known */
export interface NextRuns {
  runs: RunRecord[];
  history?: SessionMessage[];
}

/**
 * Writes a run's status, transcript and always-posted summary in one transaction; while this
 * process takes work and has room, the same commit claims the next run into the place this one
 * leaves (`claimNext`: not for a run with one behind it in its chain, which takes the place instead).
 */
export function completeRun(ctx: RunContext, id: string, completion: Omit<RunCompletion, 'summary'>, action: AgentAction, outcome: Parameters<typeof runSummary>[1], claimNext: boolean): Promise<RunCompleted> {
  const { store } = ctx.deps;
  let writing: Promise<RunCompleted>;
  ctx.completing.add(id);
  try {
    // herald's policy beyond OpenClaw's: the summary of a run over outside content is flagged on its event
    const untrusted = !action.allowUnsafeExternalContent;
    const text = runSummary(action.name, outcome, untrusted);
    // the completion is the caller's own literal, made for this call: its summary is set on it, not on a copy of it
    const written = completion as RunCompletion;
    written.summary = { session: MAIN_SESSION, text, maxPending: MAX_PENDING_EVENTS, untrusted };
    // on the run's span, when tracing is on (no attributes made for every run while it is off): how it ended and the model that answered
    if (tracingOn()) annotate({ 'herald.run.status': completion.status, 'herald.model.ref': completion.model ?? undefined });
    // the run itself still holds a slot: claiming into it keeps the count, unless fewer may be held now
    writing =
      claimNext && ctx.claims.accepting && ctx.slots.taken() <= ctx.slots.capacity()
        ? store.runs.completeAndClaimNext(id, written, ctx.claims.lease(), ctx.slots.runsBehind())
        : store.runs.complete(id, written).then((finished) => ({ finished }));
  } catch (error) {
    ctx.completing.delete(id);
    return Promise.reject(error);
  }
  // not an async function: one reaction on the store's promise is the answer, where an async
  // function's promise and its await were two steps more for every run
  return writing.then(
    (completed) => {
      ctx.completing.delete(id);
      if (completed.finished) ctx.deps.onRunFinished?.(completion.status);
      return completed;
    },
    (error: unknown) => {
      ctx.completing.delete(id);
      throw error;
    },
  );
}

/**
 * Waits for a run's completion, already asked, and passes the run's history on to the run behind
 * it in its chain: at once when the store has a single writer (the completion behind then commits
 * after this one, often with it), else once this one committed. No history known (the run failed
 * before reading it): nothing is passed on, and the run behind is given back when this one leaves.
 */
export function completeInChain(ctx: RunContext, completing: Promise<RunCompleted>, place: ChainPlace, history: () => SessionMessage[] | undefined): Promise<RunCompleted> {
  // the history is made only for a run behind (most runs have none)
  const passOn = () => {
    const known = place.passBehind && history();
    if (known) place.passBehind!(known);
  };
  // not an async function: with a single writer the completion's own promise is the answer
  if (ctx.deps.store.runs.singleWriter) {
    passOn();
    return completing;
  }
  return completing.then((completed) => {
    if (completed.finished) passOn();
    return completed;
  });
}

/** the runs the completion claimed, with this run's history when they are of its session (another session's run reads its own) */
export function nextRuns(completed: RunCompleted, run: RunRecord, history: () => SessionMessage[] | undefined): NextRuns | undefined {
  if (!completed.claimed) return undefined;
  return { runs: completed.claimed, history: completed.claimed[0]!.sessionKey === run.sessionKey ? history() : undefined };
}

/**
 * After a finished run: its reply's delivery (the outbox re-queues it at start should the process
 * die first), then the heartbeat if asked. The run is finished by then: a failure here is logged, not the run's.
 * A promise only while a reply is being queued: most runs deliver nothing, and wait for nothing here.
 */
export function afterRun(ctx: RunContext, run: RunRecord, end: Pick<RunRecord, 'status' | 'finishedAt' | 'reply' | 'error'>, action: AgentAction): Promise<void> | undefined {
  const { delivery, heartbeat, logger } = ctx.deps;
  try {
    const text = action.deliver ? deliveredText(ctx, end, action) : undefined;
    if (text !== undefined) {
      // the finished run's record, made only for the reply it delivers (and the closures only for it too)
      return delivery
        .deliverRunReply(copyWith(run, end), action, text)
        .then(() => wakeIfAsked(heartbeat, action))
        .catch((err: unknown) => replyQueueFailed(logger, run.id, err));
    }
    wakeIfAsked(heartbeat, action);
  } catch (err) {
    replyQueueFailed(logger, run.id, err);
  }
  return undefined;
}

/**
 * What a finished run sends: its visible reply, unless the hook's own answer carried it; else the
 * mapping's `failureReply` when the run ended without one, so a recipient left waiting (a deferred
 * Discord interaction) hears that it failed. A failed run's answer was the fallback, never its reply.
 */
function deliveredText(ctx: RunContext, end: Pick<RunRecord, 'status' | 'finishedAt' | 'reply'>, action: AgentAction): string | undefined {
  // the hook's own answer carried the reply (respond.waitMs): RunWaiter decides by the same rule
  const answered = answeredInResponse(action, end.finishedAt);
  const disposition = replyDisposition(end.reply, ctx.deps.config.heartbeat.ackMaxChars);
  if (end.status === 'succeeded') {
    if (answered) return undefined;
    if (disposition === 'visible') return end.reply!;
    return disposition === 'empty' ? action.failureReply : undefined;
  }
  return action.failureReply;
}

function wakeIfAsked(heartbeat: RunContext['deps']['heartbeat'], action: AgentAction): void {
  if (action.wakeMode === 'now') heartbeat.request();
}

function replyQueueFailed(logger: RunContext['deps']['logger'], runId: string, err: unknown): void {
  logger.error({ err, runId }, 'queueing the reply of a finished run failed');
}
