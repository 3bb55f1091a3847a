import type { ChatMessage, ModelToolCall } from '../../models/provider.js';
import { traced, tracingOn, type TraceSpan } from '../../tracing/tracing.js';
import { NO_SPAN } from '../../tracing/trace-span.js';
import type { ToolCallRecord, ToolCallStatus } from '../../store/port.js';
import { uuidV7 } from '../../time/uuid-v7.js';
import { parseArguments, type ParsedArguments } from '../../tools/tool-arguments.js';
import { capText } from '../../tools/result-cap.js';
import type { ToolResult, ToolSpec } from '../../tools/tool-spec.js';
import type { TurnTools } from '../../tools/turn-tools.js';
import type { ToolLedger, TurnCheckpoint } from './tool-ledger.js';
import { taskOptions } from './task-handle.js';

/** whose calls these are, on their record */
export interface CallAttribution {
  agentId: string;
  mappingId?: string;
  keyName?: string;
}

export interface RoundContext {
  tools: TurnTools;
  ledger: ToolLedger;
  attribution: CallAttribution;
  signal?: AbortSignal;
  /** how long a call held for a person waits before the approvals sweep refuses it (tools.approvalTimeout) */
  approvalTimeoutMs: number;
  /** told of each call's end, executed or not (the metrics); `seconds` when it was executed */
  onCallFinished?: (server: string, tool: string, outcome: Exclude<ToolCallStatus, 'waiting_approval' | 'running'>, seconds?: number) => void;
}

/** a round's end: the results the model is sent, in the order of its calls, and the calls waiting for a person */
export interface RoundResult {
  messages: ChatMessage[];
  pending: ToolCallRecord[];
}

/** the turn's run lost its lease while recording a round: nothing of the round was executed */
export class ToolRoundRefused extends Error {}

/**
 * One round of the model's calls of server-side tools: each decided (run, wait for a person, or
 * refused with the reason the model is told), all stored before any executes, those to run run in
 * parallel within their time limit, each stored again with its result.
 */
export async function runToolRound(ctx: RoundContext, calls: ModelToolCall[], checkpoint: TurnCheckpoint): Promise<RoundResult> {
  const now = Date.now();
  // planned synchronously once each tool's schema is compiled: a promise per call only for a first call of its tool
  const planning = calls.map((call, i) => plan(ctx, call, checkpoint, i, now));
  const planned = planning.some((p) => p instanceof Promise) ? await Promise.all(planning) : (planning as Planned[]);
  if (!(await ctx.ledger.begin(planned.map((p) => p.record), checkpoint))) throw new ToolRoundRefused('the run is no longer held by this process');
  for (const { record } of planned) if (record.status === 'refused') ctx.onCallFinished?.(record.server, record.tool, 'refused');
  const results = await Promise.all(planned.map((p) => (p.args ? executeCall(ctx, p.record, p.spec!, p.args) : undefined)));
  const messages: ChatMessage[] = [];
  const pending: ToolCallRecord[] = [];
  planned.forEach((p, i) => {
    if (p.record.status === 'waiting_approval') pending.push(p.record);
    else messages.push(toolMessage(p.record.callId, results[i] ?? { text: p.record.error ?? '', isError: true }));
  });
  return { messages, pending };
}

/** the i-th call of a round decided: run, wait for a person, or refused with the reason the model is told */
function plan(ctx: RoundContext, call: ModelToolCall, checkpoint: TurnCheckpoint, i: number, now: number): Planned | Promise<Planned> {
  const { tools } = ctx;
  const spec = tools.byName(call.function.name);
  const record = newRecord(ctx, call, checkpoint.round, spec, now);
  if (!spec) return refuse(record, `no tool named "${call.function.name}" is granted to this agent`);
  if (checkpoint.callsMade + i >= tools.maxToolCalls) return refuse(record, `the turn's limit of ${tools.maxToolCalls} tool calls is reached: answer without calling more tools`);
  const parsing = parseArguments(spec, call.function.arguments);
  return parsing instanceof Promise ? parsing.then((parsed) => decide(ctx, record, spec, parsed, now)) : decide(ctx, record, spec, parsing, now);
}

function decide(ctx: RoundContext, record: ToolCallRecord, spec: ToolSpec, parsed: ParsedArguments, now: number): Planned {
  if (!parsed.ok) return refuse(record, parsed.error);
  const verdict = ctx.tools.verdict(spec);
  if (verdict.kind === 'refuse') return refuse(record, verdict.reason);
  if (verdict.kind === 'approve') {
    record.status = 'waiting_approval';
    record.approvalRequired = true;
    record.approvalExpiresAt = now + ctx.approvalTimeoutMs;
    return { record, spec };
  }
  record.status = 'running';
  record.startedAt = now;
  return { record, spec, args: parsed.args };
}

interface Planned {
  record: ToolCallRecord;
  spec?: ToolSpec;
  args?: Record<string, unknown>;
}

function refuse(record: ToolCallRecord, reason: string): Planned {
  record.status = 'refused';
  record.error = reason;
  record.finishedAt = record.createdAt;
  return { record };
}

function newRecord(ctx: RoundContext, call: ModelToolCall, turn: number, spec: ToolSpec | undefined, now: number): ToolCallRecord {
  const [server, tool] = spec ? [spec.server, spec.tool] : ['', call.function.name];
  return {
    id: `tc_${uuidV7(now).replace(/-/g, '')}`,
    callId: call.id,
    ownerKind: ctx.ledger.ownerKind,
    ownerId: ctx.ledger.ownerId,
    agentId: ctx.attribution.agentId,
    mappingId: ctx.attribution.mappingId ?? null,
    keyName: ctx.attribution.keyName ?? null,
    turn,
    server,
    tool,
    arguments: call.function.arguments.slice(0, 64 * 1024),
    readOnly: spec?.readOnly ?? false,
    status: 'running',
    createdAt: now,
    approvalRequired: false,
  };
}

/**
 * Executes one call already on the record and records its end. A source answers its own faults as
 * an error result; anything it throws all the same (a bug, an abort) becomes one here, so a call
 * can never take the turn down with it.
 */
export function executeCall(ctx: RoundContext, record: ToolCallRecord, spec: ToolSpec, args: Record<string, unknown>): Promise<ToolResult> {
  // tracing off, no span's name or attributes are made for every call
  if (!tracingOn()) return executeTraced(ctx, record, spec, args, NO_SPAN);
  // OpenTelemetry's GenAI tool span (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/#execute-tool-span):
  // the tool, the model's id of the call and how it ended, never its arguments or result
  const attributes = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': spec.name, 'gen_ai.tool.call.id': record.callId, 'herald.tool.server': spec.server, 'herald.tool.call.id': record.id };
  return traced(`execute_tool ${spec.name}`, { attributes }, (span) => executeTraced(ctx, record, spec, args, span));
}

async function executeTraced(ctx: RoundContext, record: ToolCallRecord, spec: ToolSpec, args: Record<string, unknown>, span: TraceSpan): Promise<ToolResult> {
  const started = Date.now();
  const timeoutMs = ctx.tools.timeoutMs(spec);
  let result: ToolResult;
  let status: ToolCallStatus;
  try {
    // the source's own limit restarts with each progress notification, up to maxCallMs: this one holds past that
    const limitMs = ctx.tools.maxCallMs?.(spec) ?? timeoutMs;
    const context = { agentId: ctx.attribution.agentId, callRecordId: record.id, owner: { kind: ctx.ledger.ownerKind, id: ctx.ledger.ownerId } };
    result = await withTimeout(ctx.tools.call(spec, args, { signal: ctx.signal, timeoutMs, context, ...taskOptions(ctx.ledger, record) }), limitMs);
    status = result.isError ? (result.timedOut ? 'timed_out' : 'failed') : 'succeeded';
  } catch (error) {
    const timedOut = error instanceof CallTimeout;
    status = timedOut ? 'timed_out' : 'failed';
    result = { text: timedOut ? `the tool did not answer within ${timeoutMs / 1000}s` : `the call failed: ${error instanceof Error ? error.message : String(error)}`, isError: true };
  }
  result = { ...result, text: capText(result.text, ctx.tools.maxResultChars) };
  const finishedAt = Date.now();
  await ctx.ledger.finish(record.id, {
    status,
    result: result.isError ? null : result.text,
    error: result.isError ? result.text : null,
    startedAt: started,
    finishedAt,
    durationMs: finishedAt - started,
    content: result.parts ?? null,
  });
  ctx.onCallFinished?.(spec.server, spec.tool, status, (finishedAt - started) / 1000);
  span.set({ 'herald.tool.status': status });
  // a failed call is answered to the model, not thrown: the span is marked failed all the same, by
  // how it ended (`failed`, `timed_out`), never by the error's text, which quotes the server
  if (status !== 'succeeded') span.fail({ code: status });
  return result;
}

class CallTimeout extends Error {}

/** the source keeps its own time limit; this one holds even for a source that does not */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  // one promise and one timer, not a race of two promises and a `finally`: this wraps every call
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new CallTimeout()), ms + 1000);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

export function toolMessage(callId: string, result: ToolResult): ChatMessage {
  return { role: 'tool', tool_call_id: callId, content: result.isError ? `Error: ${result.text}` : result.text, ...(!result.isError && result.media?.length && { media: result.media }) };
}
