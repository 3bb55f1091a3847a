import { executeCall, type RoundContext } from '../../agents/tool-use/tool-round.js';
import { callsLedger } from '../../agents/tool-use/tool-ledger.js';
import { compileTemplate } from '../../mappings/templates/template.js';
import { describeJsonataError } from '../../mappings/templates/jsonata-expression.js';
import { sanitize } from '../../mappings/templates/template-scope.js';
import type { RunRecord, RunStatus, SessionMessage, ToolCallRecord } from '../../store/port.js';
import type { RunToolCall } from '../../store/contracts/run-action.js';
import { uuidV7 } from '../../time/uuid-v7.js';
import { argumentFaults } from '../../tools/tool-arguments.js';
import type { ToolResult, ToolSpec } from '../../tools/tool-spec.js';
import type { TurnTools } from '../../tools/turn-tools.js';
import { serverOfToolName } from '../../tools/direct-call.js';
import type { RunAbort } from '../run-abort.js';
import { parseDuration } from '../../config/sections/duration-schema.js';
import { afterRun, completeInChain, completeRun, nextRuns, type NextRuns } from './run-completion.js';
import type { RunContext } from './run-context.js';
import type { ChainPlace } from './session-chain.js';

/** what a run's record says of a call that was running when its process died (resume-round.ts says it to a model) */
const INTERRUPTED = 'the call was interrupted: herald stopped while it ran, and it was not made again (it may or may not have taken effect)';

/** where a direct call's run stands (RunRecord.turnState): no model turn, so no messages to resume */
const TOOL_STATE = { kind: 'tool' } as const;

/**
 * Executes a claimed run of kind `tool`: one tool called without a model, under the same rules
 * and the same record as an agent's calls (src/tools: the grant, the argument check, the time
 * limit and result cap; tool_calls: each attempt stored before it executes and again after).
 * Read from its record on every take, so a run taken again (after a crash, an approval, a
 * restart) goes on from where it stands: an approved call executes, a denied one fails the run,
 * one that was running when its process died is `interrupted` and never made again (unless its
 * tool only reads), one that succeeded completes the run. A failed attempt is tried again per
 * the action's `retry` only when the tool is read-only or idempotent, or the call never reached
 * its server.
 */
export async function executeToolRun(ctx: RunContext, run: RunRecord, abort: RunAbort, place: ChainPlace): Promise<NextRuns | undefined> {
  // a schedule's calls share its session (`cron:<id>`): one at a time, in order
  const history = place.ahead ? await place.ahead : undefined;
  if (place.ahead && history === undefined) return giveBack(ctx, run.id);
  const call = run.action.call;
  const toolbox = ctx.deps.agentTurn.toolbox;
  if (!call || !toolbox) return finish(ctx, run, place, history, 'failed', { error: call ? 'no tools are configured (tools.mcpServers)' : 'the run has no call to make' });
  const waiting = toolbox.untilServerTried(call.tool);
  if (waiting) await Promise.race([waiting, new Promise<void>((resolve) => abort.onAbort(resolve))]);
  if (abort.aborted) return giveBack(ctx, run.id);

  const action = run.action;
  const tools = toolbox.direct(call.tool, { outside: call.outside, canWait: true, mapping: action.tools, signed: action.signed === true });
  const source = action.schedule ? 'schedule' : 'mapping';
  const ledger = callsLedger(ctx.deps.store.toolCalls, 'run', run.id);
  const round: RoundContext = {
    tools: call.timeoutSeconds ? withTimeout(tools, call.timeoutSeconds) : tools,
    ledger,
    attribution: { agentId: run.agentId, mappingId: action.source.mappingId },
    approvalTimeoutMs: parseDuration(ctx.deps.config.tools.approvalTimeout),
    onCallFinished: (server, tool, outcome, seconds) => ctx.deps.onDirectCallFinished?.(source, server, tool, outcome, seconds),
  };
  const owner = ctx.claims.owner;
  const maxAttempts = action.retry ? (action.retry.attempts ?? 3) : 1;

  for (;;) {
    const recorded = await ledger.recorded();
    const last = recorded.at(-1);
    const spec = tools.byName(call.tool);
    let result: ToolResult | undefined;
    let record: ToolCallRecord | undefined;
    if (last?.status === 'waiting_approval') {
      if (!last.approval) {
        if (await ctx.deps.store.runs.pauseForApproval(run.id, owner)) {
          ctx.deps.logger.info({ runId: run.id, waiting: 1 }, 'run waits for approval');
          await ctx.deps.onApprovalNeeded?.(run, [last]);
          return undefined;
        }
        // decided while it was being paused: read again
        if (!(await ctx.deps.store.runs.renew([run.id], owner, ctx.claims.lease().until)).length) return undefined;
        continue;
      }
      if (!spec) {
        const down = tools.unavailable?.(serverOfToolName(call.tool), call.tool);
        await endCall(round, last, down ? 'failed' : 'refused', down ?? `${call.tool} is not granted any longer`);
        return finish(ctx, run, place, history, 'failed', { error: down ?? `${call.tool} is not granted any longer` });
      }
      await ledger.start(last.id, Date.now());
      record = last;
      result = await executeCall(round, last, spec, call.arguments);
    } else if (last?.status === 'running') {
      // its process died during the call: made again only when the tool only reads, as an agent's call would be; a task its server runs is polled, not made again
      if (spec && (last.task || (spec.readOnly && last.readOnly))) {
        record = last;
        result = await executeCall(round, last, spec, call.arguments);
      } else {
        await endCall(round, last, 'interrupted', INTERRUPTED);
        return finish(ctx, run, place, history, 'failed', { error: INTERRUPTED });
      }
    } else if (last?.status === 'succeeded') {
      return succeeded(ctx, run, place, history, call, { text: last.result ?? '', isError: false });
    } else if (last && last.status !== 'failed' && last.status !== 'timed_out') {
      // refused, denied, interrupted: the run ends with it
      return finish(ctx, run, place, history, 'failed', { error: endedText(last) });
    } else if (last && !retryable(spec, last, recorded.length, maxAttempts)) {
      return finish(ctx, run, place, history, 'failed', { error: last.error ?? last.status });
    } else {
      if (last) await backoff(action.retry, recorded.length, abort);
      if (abort.aborted) return giveBack(ctx, run.id);
      const planned = await plan(round, spec, call, recorded.length, run);
      if (!(await ctx.deps.store.runs.checkpoint(run.id, owner, TOOL_STATE, [planned.record]))) return undefined;
      if (planned.record.status === 'refused' || planned.record.status === 'failed') {
        round.onCallFinished?.(planned.record.server, planned.record.tool, planned.record.status);
        // its server is not connected, so the call never reached it: tried again per the retry policy
        if (planned.record.status === 'failed') continue;
        return finish(ctx, run, place, history, 'failed', { error: planned.record.error ?? 'refused' });
      }
      if (planned.record.status === 'waiting_approval') continue;
      record = planned.record;
      result = await executeCall(round, planned.record, spec!, call.arguments);
    }
    if (!result.isError) return succeeded(ctx, run, place, history, call, result);
    if (!retryable(spec, record, recorded.length + (record === last ? 0 : 1), maxAttempts)) return finish(ctx, run, place, history, 'failed', { error: result.text });
  }
}

/** a new attempt's record: refused (not granted, not listed, arguments off its schema), waiting for a person, or running */
async function plan(round: RoundContext, spec: ToolSpec | undefined, call: RunToolCall, turn: number, run: RunRecord): Promise<{ record: ToolCallRecord }> {
  const { tools } = round;
  const now = Date.now();
  const server = spec?.server ?? serverOfToolName(call.tool);
  const record: ToolCallRecord = {
    id: `tc_${uuidV7(now).replace(/-/g, '')}`,
    callId: `${run.id}:${turn}`,
    ownerKind: 'run',
    ownerId: run.id,
    agentId: run.agentId,
    mappingId: round.attribution.mappingId,
    keyName: null,
    turn,
    server,
    tool: spec?.tool ?? call.tool.slice(server.length + 2),
    arguments: JSON.stringify(call.arguments).slice(0, 64 * 1024),
    readOnly: spec?.readOnly ?? false,
    status: 'running',
    createdAt: now,
    startedAt: now,
    approvalRequired: false,
  };
  const refused = (error: string, status: 'refused' | 'failed' = 'refused') => Object.assign(record, { status, error, startedAt: null, finishedAt: now });
  if (!spec) {
    // its server is down (not connected, so its tools are not known): failed without reaching it
    const down = tools.unavailable?.(server, call.tool);
    return { record: down ? refused(down, 'failed') : refused(`no tool named "${call.tool}" is listed by the server ${server}`) };
  }
  const faults = await argumentFaults(spec, call.arguments);
  if (faults.length) return { record: refused(`the arguments do not match the tool's schema: ${faults.join('; ')}`) };
  const verdict = tools.verdict(spec);
  if (verdict.kind === 'refuse') return { record: refused(verdict.reason) };
  if (verdict.kind === 'approve') return { record: Object.assign(record, { status: 'waiting_approval' as const, approvalRequired: true, approvalExpiresAt: now + round.approvalTimeoutMs, startedAt: null }) };
  return { record };
}

/** a failed attempt is made again only when its tool does nothing more the second time (or it never reached its server), and attempts remain */
function retryable(spec: ToolSpec | undefined, last: ToolCallRecord | undefined, made: number, maxAttempts: number): boolean {
  if (made >= maxAttempts) return false;
  return (spec !== undefined && (spec.readOnly || spec.idempotent === true)) || last?.startedAt == null;
}

async function backoff(retry: RunRecord['action']['retry'], made: number, abort: RunAbort): Promise<void> {
  const initial = retry?.initialMs ?? 1000;
  const step = retry?.backoff === 'linear' ? initial * made : initial * 2 ** (made - 1);
  const ms = Math.min(step, retry?.maxMs ?? 30_000);
  if (ms <= 0) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    abort.onAbort(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

async function endCall(round: RoundContext, record: ToolCallRecord, status: 'failed' | 'refused' | 'interrupted', error: string): Promise<void> {
  await round.ledger.finish(record.id, { status, error, finishedAt: Date.now() });
  round.onCallFinished?.(record.server, record.tool, status);
}

function endedText(record: ToolCallRecord): string {
  if (record.status !== 'denied') return record.error ?? record.status;
  const approval = record.approval;
  if (approval?.decision === 'expired') return 'a person was asked to approve this call and did not answer in time: it was not made';
  return `a person (${approval?.by ?? 'an operator'}) refused this call${approval?.reason ? `: ${approval.reason}` : ''}. It was not made.`;
}

/** the run's reply: `then.message` rendered over the result, or the result's text */
async function succeeded(ctx: RunContext, run: RunRecord, place: ChainPlace, history: SessionMessage[] | undefined, call: RunToolCall, result: ToolResult): Promise<NextRuns | undefined> {
  if (!call.then) return finish(ctx, run, place, history, 'succeeded', { reply: result.text });
  try {
    return finish(ctx, run, place, history, 'succeeded', { reply: await renderThen(call, result.text) });
  } catch (error) {
    // the call was made: the run succeeded, its reply the result itself, and the message's fault on its record
    ctx.deps.logger.warn({ runId: run.id, mapping: run.action.source.mappingId }, 'then.message failed to render');
    return finish(ctx, run, place, history, 'succeeded', { reply: result.text, error: `then.message: ${describeJsonataError(error)}` });
  }
}

/** `then.message` over `{ result: { text, json }, arguments }`: `json` is the text parsed, when it is JSON */
export async function renderThen(call: Pick<RunToolCall, 'then' | 'arguments'>, text: string): Promise<string> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const input = sanitize({ result: { text, ...(json !== undefined && { json }) }, arguments: call.arguments });
  return compileTemplate(call.then!.message).render({ payload: input, bindings: { payload: input, headers: {}, query: {}, path: '', now: new Date().toISOString() } });
}

/** completes the run as an agent run completes (its summary on the main session, its reply delivered as its action says) */
async function finish(ctx: RunContext, run: RunRecord, place: ChainPlace, history: SessionMessage[] | undefined, status: Extract<RunStatus, 'succeeded' | 'failed'>, end: { reply?: string; error?: string }): Promise<NextRuns | undefined> {
  const at = Date.now();
  const action = run.action;
  const completing = completeRun(ctx, run.id, { status, reply: end.reply ?? null, error: end.error ?? null, at, transcript: [], sessionKey: run.sessionKey }, action, status === 'succeeded' ? { reply: end.reply } : { error: end.error }, !place.passBehind);
  const completed = await completeInChain(ctx, completing, place, () => history ?? []);
  if (!completed.finished) return giveBack(ctx, run.id);
  if (ctx.deps.logger.isLevelEnabled('info')) ctx.deps.logger.info({ runId: run.id, kind: 'tool', status, ms: at - (run.startedAt ?? run.createdAt) }, 'run finished');
  const next = nextRuns(completed, run, () => history);
  const after = afterRun(ctx, run, { status, reply: end.reply ?? null, error: end.error ?? null, finishedAt: at }, action);
  if (after) await after;
  return next;
}

async function giveBack(ctx: RunContext, id: string): Promise<undefined> {
  await ctx.claims.giveBack([id]);
  return undefined;
}

/** a call's own time limit (a schedule's timeoutSeconds) over its server's */
function withTimeout(tools: TurnTools, seconds: number): TurnTools {
  return { ...tools, timeoutMs: () => seconds * 1000 };
}
