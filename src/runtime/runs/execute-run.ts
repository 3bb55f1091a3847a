import { AllModelsFailedError, describeFailures } from '../../models/complete-with-fallbacks.js';
import { takeAgentTurn, type TurnResult } from '../../agents/agent-turn.js';
import { takeRunTurnInProcess } from '../../agents/in-process-turn.js';
import type { HookRunTurnInput } from '../../agents/turn-inputs.js';
import { turnModelRefs } from '../../agents/turn-prompt.js';
import { errorDetail, verboseErrors } from '../../log/log-detail.js';
import type { AgentAction } from '../../mappings/hook-action.js';
import { providerFailureFields } from '../../models/providers/provider-failure.js';
import type { RunCompleted, RunRecord, SessionMessage } from '../../store/port.js';
import type { RunAbort } from '../run-abort.js';
import { newMarkerId } from '../../agents/external-content.js';
import { countedRunPrompt, promptMeta } from '../run-prompt.js';
import { LeaseLost } from './run-claims.js';
import { afterRun, completeInChain, completeRun, nextRuns, type NextRuns } from './run-completion.js';
import type { RunContext } from './run-context.js';
import type { ChainPlace } from './session-chain.js';
import { readCheckpoint, type TurnCheckpoint } from '../../agents/tool-use/tool-ledger.js';
import { ToolRoundRefused } from '../../agents/tool-use/tool-round.js';
import { runLedger } from './run-ledger.js';
import { executeToolRun } from './execute-tool-run.js';

class RunTimeout extends Error {}

/** the store failed to record a finished run: not the run's own failure */
class StoreFault extends Error {
  constructor(cause: unknown) {
    super('completing the run failed', { cause });
  }
}

/**
 * Executes a claimed run: waits for the run ahead in its chain, then for a turn, then asks its
 * agent and completes it. Returns the runs its completion claimed into its place, if any. A run
 * that will not be finished here (aborted by a shutdown, its run ahead ended without an outcome,
 * finished by another process) is given back to the queue, and nothing is returned.
 */
export function executeRun(ctx: RunContext, run: RunRecord, abort: RunAbort, history: SessionMessage[] | undefined, place: ChainPlace): Promise<NextRuns | undefined> {
  // not an async function: a run with nothing to wait for is its turn's promise, no layer around it
  // a direct call asks no model: it takes no model turn
  if (run.action.kind === 'tool') return executeToolRun(ctx, run, abort, place);
  if (place.ahead) return afterRunAhead(ctx, run, abort, place);
  return inTurn(ctx, run, abort, history, place);
}

/** the run behind another of its chain: its history is the one ahead's, once that one has its outcome */
async function afterRunAhead(ctx: RunContext, run: RunRecord, abort: RunAbort, place: ChainPlace): Promise<NextRuns | undefined> {
  const history = await place.ahead;
  if (history === undefined) return giveBack(ctx, run.id);
  return await inTurn(ctx, run, abort, history, place);
}

/** a run claimed ahead waits for a turn; aborted meanwhile (a shutdown, a lost lease), it is given back as below */
function inTurn(ctx: RunContext, run: RunRecord, abort: RunAbort, history: SessionMessage[] | undefined, place: ChainPlace): Promise<NextRuns | undefined> {
  const turn = ctx.turns.take(abort);
  if (turn === true) return takeTurn(ctx, run, abort, history, place);
  if (turn === false) return givenUp(ctx, run.id, abort);
  return turn.then((taken) => (taken ? takeTurn(ctx, run, abort, history, place) : givenUp(ctx, run.id, abort)));
}

/** the run in its turn: asked, answered or failed, and completed, within its time limit */
async function takeTurn(ctx: RunContext, run: RunRecord, abort: RunAbort, carried: SessionMessage[] | undefined, place: ChainPlace): Promise<NextRuns | undefined> {
  const { config, logger } = ctx.deps;
  const { historyLimit } = config.agents.defaults;
  const { id } = run;
  const action: AgentAction = run.action;
  const agent = ctx.deps.agents.get(run.agentId) ?? ctx.deps.agents.default();
  // the turn's place is given up once its outcome is known, before the completion is written:
  // the runs claimed ahead take their turns while it waits for its commit, and share that commit
  const turnStarted = Date.now();
  let inTurn = true;
  const endTurn = () => {
    if (!inTurn) return;
    inTurn = false;
    ctx.turns.end(Date.now() - turnStarted);
  };
  // one abort per run: its time limit, a shutdown and a lost lease all abort it, each with its own reason.
  // Models answering in-process get no signal (see RunAbort): an abort before their answer is
  // recorded is seen when it is, as the model would have seen it when asked
  const inProcess = ctx.deps.agentTurn.models.answersInProcess(turnModelRefs(config, agent, action.model));
  const timeoutMs = (action.timeoutSeconds ?? config.agents.defaults.timeoutSeconds) * 1000;
  const deadlineAt = Date.now() + timeoutMs;
  // a model answering in process heeds no signal: its run's time limit is read where the abort
  // would be (a wait for its MCP servers, its answer recorded), and no timer is set for it
  const timesOut = () => abort.abort(new RunTimeout('run timed out'));
  let timer: NodeJS.Timeout | undefined;
  /** the time limit's timer, set once, for what remains of it: before a wait the abort must end */
  const armTimer = () => (timer ??= setTimeout(timesOut, deadlineAt - Date.now()));
  if (!inProcess) armTimer();
  // a run that did not name its session key has a made-up one: nothing to read (a retaken run's transcript was never written)
  const freshSession = action.sessionKey === undefined;
  let history = carried;
  try {
    const markerId = newMarkerId();
    const { text: prompt, words: promptWords } = countedRunPrompt(action, run.createdAt, markerId);
    let now = 0;
    let completed: RunCompleted;
    let written: SessionMessage[] = [];
    history ??= freshSession ? [] : await ctx.deps.agentTurn.sessions.messages(run.sessionKey, historyLimit);
    const seen = history;
    // a session with no message yet (its key made for the run, or none read): the transcript opens it
    const opensSession = seen.length === 0;
    const historyAfter = () => [...seen, ...written].slice(-historyLimit);
    // a run taken right after a start (queued before it, or left by a crashed process) would see none of its MCP servers' tools yet
    const connecting = ctx.deps.agentTurn.toolbox?.untilTried(agent);
    if (connecting) {
      armTimer();
      await untilSettledOrAborted(connecting, abort);
    }
    // tools granted by config: a hook run reads outside content, so a write waits for a person unless its mapping grants it to signed requests
    const tools = ctx.deps.agentTurn.toolbox?.grant(agent, { outside: true, canWait: true, mapping: action.tools, signed: action.signed === true });
    // servers waiting for a person to sign in offer no tools: the run's record names them (at its start, or by its end)
    const signInAtStart = ctx.deps.agentTurn.toolbox?.awaitingSignIn(agent);
    const ledger = tools ? runLedger(ctx.deps.store, id, ctx.claims.owner) : undefined;
    // a tool call waits on a server, which the abort stops at the time limit
    if (tools) armTimer();
    const turnInput = (resume: TurnCheckpoint | undefined): HookRunTurnInput => ({
      agent,
      purpose: 'run',
      sessionKey: run.sessionKey,
      history: seen,
      prompt,
      promptWords,
      question: action.message,
      model: action.model,
      options: { thinking: action.thinking },
      signal: inProcess ? undefined : abort.signal,
      // the primary, then each fallback on an error or when its share of the time limit runs out
      deadlineAt,
      // the message as received, never the safety-wrapped form (its marker id kept beside it, in
      // meta: the run's detail makes the prompt again, so the console shows what the model saw)
      incoming: [{ role: 'user', content: action.message, createdAt: run.createdAt, runId: id, meta: promptMeta(markerId) }],
      // the passages the model was given, on the answer as chat records them (the run's citations)
      answer: ({ knowledge }) => (knowledge.length ? { runId: id, meta: { citations: knowledge.map((p) => p.chunkId) } } : { runId: id }),
      // the turn reserves each model call against the agent's budget: a spent one fails the run
      // before its model is asked, the budget's sentence recorded as the run's error
      usage: { source: action.schedule ? 'schedule' : 'run', mappingId: action.source.mappingId },
      ...(tools && { tools, ledger }),
      ...(resume && { resume }),
    });
    // a chain answering in process computes the turn in this call (no promise to wait for)
    const turn = (resume: TurnCheckpoint | undefined) => (inProcess ? takeRunTurnInProcess : takeAgentTurn)(ctx.deps.agentTurn, turnInput(resume));
    // a run retaken after a crash, or resumed after an approval, goes on from its checkpoint
    const first = turn(readCheckpoint(run.turnState));
    let result: TurnResult = first instanceof Promise ? await first : first;
    // past its time limit by its answer (or failure), it timed out, as the timer would have said
    if (inProcess && timer === undefined && !abort.aborted && Date.now() >= deadlineAt) timesOut();
    while (result.kind === 'paused' && !(await ctx.deps.store.runs.pauseForApproval(id, ctx.claims.owner))) {
      // not paused: another process holds the run now (it goes on from the checkpoint), or every
      // call was decided while its round was being recorded, and the turn goes on at once
      if (!(await ctx.deps.store.runs.renew([id], ctx.claims.owner, ctx.claims.lease().until)).length) return undefined;
      result = await turn(result.outcome.paused.checkpoint);
    }
    if (result.kind === 'paused') {
      endTurn();
      const { pending } = result.outcome.paused;
      logger.info({ runId: id, waiting: pending.length }, 'run waits for approval');
      await ctx.deps.onApprovalNeeded?.(run, pending);
      return undefined;
    }
    if (result.kind === 'failed') throw result.error;
    // answered: the transcript is written by the run's completion, with its status and summary, in
    // one transaction, in the tick the turn recorded the answer's tokens (one commit for both)
    const { outcome, transcript } = result;
    if (inProcess && abort.aborted) throw abort.reason;
    endTurn();
    now = transcript.at(-1)?.createdAt ?? Date.now();
    // a loop: every run looks its message up, and find would take a closure each time
    let asked: SessionMessage | undefined;
    for (const m of transcript) {
      if (m.role === 'user' && m.runId === id) {
        asked = m;
        break;
      }
    }
    const awaitingSignIn = namesOfBoth(signInAtStart, ctx.deps.agentTurn.toolbox?.awaitingSignIn(agent));
    // its meta is this run's own (promptMeta's, made above for its incoming message): the model is set on it, not on a copy
    if (asked) {
      const meta = (asked.meta ??= {});
      meta.model = outcome.modelRef;
      if (awaitingSignIn) meta.awaitingSignIn = awaitingSignIn;
    }
    written = transcript;
    // a store error here is not the run's failure: the run stays running and, once its lease
    // runs out, is retaken (a StoreFault escapes the catch below to the bookkeeping log)
    const completing = completeRun(ctx, id, { status: 'succeeded', reply: outcome.text, model: outcome.modelRef, at: now, transcript, sessionKey: run.sessionKey, opensSession }, action, { reply: outcome.text }, !place.passBehind);
    try {
      completed = await completeInChain(ctx, completing, place, historyAfter);
    } catch (error) {
      throw new StoreFault(error);
    }
    // refs only: a provider's error text may echo what it was sent
    if (outcome.failures.length) logger.warn({ runId: id, answeredBy: outcome.modelRef, failed: outcome.failures.map((f) => f.ref) }, 'run answered by a fallback model');
    const reply = outcome.text;
    // not completed: finished by another process (this one lost its lease), or its run ahead was not
    if (!completed.finished) return giveBack(ctx, id);
    // fields, not a child logger: one log line per run
    // the session key is often templated from the payload (hook:github:owner/repo): only with gateway.log.verboseErrors
    // below the level (say warn) the line's fields would be built only to be thrown away
    if (logger.isLevelEnabled('info')) logger.info({ runId: id, ...(verboseErrors(logger) && { sessionKey: run.sessionKey }), status: 'succeeded', ms: now - (run.startedAt ?? run.createdAt) }, 'run finished');
    const next = nextRuns(completed, run, historyAfter);
    const after = afterRun(ctx, run, { status: 'succeeded', reply, error: null, finishedAt: now }, action);
    if (after) await after;
    return next;
  } catch (error) {
    endTurn();
    if (error instanceof StoreFault) throw error.cause;
    // another process holds the run now (its lease ran out): it goes on from the last checkpoint
    if (error instanceof ToolRoundRefused) return undefined;
    const timedOut = abort.reason instanceof RunTimeout;
    if (abort.aborted && !timedOut) return await givenUp(ctx, id, abort);
    return await failed(ctx, run, error, timedOut ? timeoutMs : undefined, history, place);
  } finally {
    endTurn();
    clearTimeout(timer);
  }
}

/** a run that failed or timed out is completed with that status; it wrote nothing to its session, so the run behind gets the history it had */
async function failed(ctx: RunContext, run: RunRecord, error: unknown, timedOutAfterMs: number | undefined, history: SessionMessage[] | undefined, place: ChainPlace): Promise<NextRuns | undefined> {
  const { logger } = ctx.deps;
  const action: AgentAction = run.action;
  const timedOut = timedOutAfterMs !== undefined;
  const message = timedOut ? `timed out after ${timedOutAfterMs / 1000}s` : describeError(error);
  const status = timedOut ? 'timed_out' : 'failed';
  const failing = completeRun(ctx, run.id, { status, error: message, at: Date.now(), transcript: [], sessionKey: run.sessionKey }, action, { error: message }, !place.passBehind);
  const completed = await completeInChain(ctx, failing, place, () => history);
  if (!completed.finished) return giveBack(ctx, run.id);
  logger.warn({ runId: run.id, status, ...(timedOut ? {} : { ...errorDetail(logger, error), ...providerFailureFields(error) }), ...(verboseErrors(logger) && { sessionKey: run.sessionKey }) }, 'run failed');
  const next = nextRuns(completed, run, () => history);
  const after = afterRun(ctx, run, { status, reply: null, error: message, finishedAt: run.finishedAt }, action);
  if (after) await after;
  return next;
}

/** a run this process will not finish goes back to the queue, in its session's order (finished or held elsewhere: left alone) */
async function giveBack(ctx: RunContext, id: string): Promise<undefined> {
  await ctx.claims.giveBack([id]);
  return undefined;
}

/** aborted by a shutdown: given back for the next claimer (another replica, or this one restarted); by a lost lease: its new owner has it */
async function givenUp(ctx: RunContext, id: string, abort: RunAbort): Promise<undefined> {
  if (!(abort.reason instanceof LeaseLost)) await ctx.claims.giveBack([id]);
  return undefined;
}

/** the names of either list, each once; undefined when there is none (most runs: no set made for them) */
function namesOfBoth(first: readonly string[] | undefined, then: readonly string[] | undefined): string[] | undefined {
  if (!first?.length && !then?.length) return undefined;
  return [...new Set([...(first ?? []), ...(then ?? [])])];
}

/** waits for `promise`; an abort (the run's time limit, a shutdown, a lost lease) ends the wait with its reason */
function untilSettledOrAborted(promise: Promise<void>, abort: RunAbort): Promise<void> {
  if (abort.aborted) return Promise.reject(abort.reason);
  let stop: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => (stop = abort.onAbort(() => reject(abort.reason))));
  return Promise.race([promise, aborted]).finally(() => stop?.());
}

/** the run's recorded cause: each model tried with its provider and why it failed, else the error's message */
function describeError(error: unknown): string {
  let tried: unknown = error;
  for (let depth = 0; depth < 4 && tried && !(tried instanceof AllModelsFailedError); depth++) tried = (tried as { cause?: unknown }).cause;
  const message = tried instanceof AllModelsFailedError ? describeFailures(tried.failures) : error instanceof Error ? error.message : String(error);
  return message.length > 500 ? `${message.slice(0, 499)}…` : message;
}
