import { takeAgentTurn, type AgentTurnDeps } from '../../agents/agent-turn.js';
import type { TurnOutcome } from '../../agents/turn-outcome.js';
import type { AgentDirectory } from '../../agents/agent-directory.js';
import type { HeraldConfig } from '../../config/schema.js';
import type { AgentAction } from '../../mappings/hook-action.js';
import type { HookRequest } from '../../mappings/hook-request.js';
import type { MappingsEngine } from '../../mappings/mappings-engine.js';
import type { ModelRegistry } from '../../models/model-registry.js';
import type { ReceiptRecord, RunRecord, Store, ToolCallRecord } from '../../store/port.js';
import type { Toolbox } from '../../tools/toolbox.js';
import { dryRun, type DryRunOutcome } from '../operator/dry-run.js';
import { runPrompt } from '../run-prompt.js';
import type { EvalCase, EvalSide, EvalToolCall } from './eval-case.js';
import { changesOf, diffToolCalls, parsedArguments } from './eval-diff.js';
import { modelCost } from '../../accounts/model-cost.js';
import { judgeReply } from './eval-judge.js';
import { memoryLedger } from './eval-ledger.js';
import type { EvalRunOptions } from './eval-request.js';
import { replayTools, type ReplayedCall } from './replay-tools.js';

/** what an eval replays through: the candidate's parts, and the recording read-only */
export interface EvalDeps {
  /** the recording (opened read-only) */
  recording: Pick<Store, 'runs' | 'toolCalls'>;
  /** the candidate's config, mappings, agents, models and tools */
  config: HeraldConfig;
  engine: MappingsEngine;
  agents: AgentDirectory;
  models: ModelRegistry;
  /** the candidate's turn needs: no usage recorder, no budgets, no tool-call store (an eval spends nothing on them) */
  turns: AgentTurnDeps;
  toolbox?: Toolbox;
}

/** a fixture case's agent expectations */
export interface AgentExpectations {
  toolCalls?: (string | { tool: string; arguments?: Record<string, unknown> })[];
  replyIncludes?: string[];
}

/** one request to replay: a recorded one (its receipt), or a fixture case */
export interface ReplayInput {
  id: string;
  source: 'recording' | 'fixture';
  label?: string;
  request: HookRequest;
  receivedAt: number;
  receipt?: ReceiptRecord;
  expect?: AgentExpectations;
}

const toolName = (c: Pick<ToolCallRecord, 'server' | 'tool'>) => (c.server ? `${c.server}__${c.tool}` : c.tool);

/** the recording's side of a receipt: its mapping's outcome and, for a run, the run and its tool calls */
export async function recordedSide(deps: EvalDeps, receipt: ReceiptRecord): Promise<{ side: EvalSide; calls: ToolCallRecord[] }> {
  const side: EvalSide = { outcome: receipt.outcome, mappingId: receipt.mappingId, toolCalls: [] };
  const error = receipt.failure?.cause ?? receipt.errorCode;
  if (error) side.error = error;
  const run: RunRecord | undefined = receipt.runId ? await deps.recording.runs.get(receipt.runId) : undefined;
  if (!run) return { side, calls: [] };
  const calls = await deps.recording.toolCalls.ofOwner('run', run.id);
  Object.assign(side, {
    message: run.message,
    agentId: run.agentId,
    reply: run.reply,
    runStatus: run.status,
    runError: run.error,
    model: run.model ?? null,
    ...(run.startedAt !== null && run.finishedAt !== null && { ms: run.finishedAt - run.startedAt }),
    toolCalls: calls.map((c): EvalToolCall => ({ tool: toolName(c), arguments: c.arguments, status: c.status })),
  });
  return { side, calls };
}

function mappingSide(outcome: DryRunOutcome): EvalSide {
  if (outcome.type === 'error') return { outcome: 'error', mappingId: outcome.mappingId ?? null, error: outcome.reason ?? outcome.error, toolCalls: [] };
  if (outcome.type !== 'action') return { outcome: outcome.type, mappingId: outcome.mappingId, toolCalls: [] };
  const { action } = outcome;
  if (action.kind === 'wake') return { outcome: 'wake', mappingId: outcome.mappingId, message: action.text, toolCalls: [] };
  // a direct call (`action: "tool"`) is shown as the call it would make, never made
  if (outcome.toolCall) {
    const call: EvalToolCall = { tool: outcome.toolCall.tool, arguments: JSON.stringify(outcome.toolCall.arguments), status: 'not-executed', by: 'not-executed', note: outcome.toolCall.decision };
    return { outcome: 'tool', mappingId: outcome.mappingId, toolCalls: [call] };
  }
  return { outcome: 'agent', mappingId: outcome.mappingId, message: action.message, agentId: action.agentId, toolCalls: [] };
}

/** a turn of the candidate's agent on the action, in a fresh session, its tools replayed */
async function candidateTurn(deps: EvalDeps, input: ReplayInput, action: AgentAction, recorded: ToolCallRecord[], options: EvalRunOptions & { model?: string }) {
  const agent = deps.agents.get(action.agentId) ?? deps.agents.default();
  const granted = deps.toolbox?.grant(agent, { outside: true, canWait: true, mapping: action.tools, signed: action.signed === true });
  const replayed = new Map<string, ReplayedCall>();
  const ledger = memoryLedger(`eval_${input.id}`);
  const tools = granted && replayTools(granted, recorded, options.liveReads, replayed);
  const timeoutMs = (action.timeoutSeconds ?? deps.config.agents.defaults.timeoutSeconds) * 1000;
  const started = Date.now();
  let outcome: TurnOutcome | undefined;
  let error: string | undefined;
  try {
    // nothing is written: the transcript is the report's
    const result = await takeAgentTurn(deps.turns, {
      purpose: 'run',
      agent,
      sessionKey: `eval:${input.id}`,
      history: [],
      prompt: runPrompt(action, input.receivedAt),
      question: action.message,
      model: options.model ?? action.model,
      options: { thinking: action.thinking },
      signal: AbortSignal.timeout(timeoutMs),
      deadlineAt: started + timeoutMs,
      incoming: [],
      answer: () => ({}),
      ...(tools && { tools, ledger }),
    });
    if (result.kind === 'failed') throw result.error;
    outcome = result.outcome;
  } catch (failure) {
    error = failure instanceof Error ? failure.message : String(failure);
  }
  const calls = ledger.calls.map((c): EvalToolCall => {
    const how = replayed.get(c.id);
    return {
      tool: toolName(c),
      arguments: c.arguments,
      status: how ? how.by : c.status === 'refused' ? 'refused' : c.status,
      ...(how?.by && { by: how.by }),
      ...(how?.wouldWait && { wouldWait: true }),
      ...(how?.resultCut && { resultCut: true }),
      ...((how?.note ?? c.error) && { note: how?.note ?? c.error ?? undefined }),
    };
  });
  return { outcome, error, calls, ms: Date.now() - started };
}

/** whether the candidate's side meets a fixture's agent expectations, and what it missed */
function checkExpectations(expect: AgentExpectations, side: EvalSide): { ok: boolean; failures: string[] } {
  const failures: string[] = [];
  for (const wanted of expect.toolCalls ?? []) {
    const { tool, arguments: args } = typeof wanted === 'string' ? { tool: wanted, arguments: undefined } : wanted;
    const met = side.toolCalls.some((c) => c.tool === tool && (!args || contains(parsedArguments(c.arguments), args)));
    if (!met) failures.push(`expected a call of ${tool}${args ? ` with ${JSON.stringify(args)}` : ''}`);
  }
  const reply = (side.reply ?? '').toLowerCase();
  for (const text of expect.replyIncludes ?? []) if (!reply.includes(text.toLowerCase())) failures.push(`expected the reply to include "${text}"`);
  return { ok: failures.length === 0, failures };
}

/** `actual` has every field of `wanted`, recursively (arrays compared whole) */
function contains(actual: unknown, wanted: unknown): boolean {
  if (wanted === null || typeof wanted !== 'object' || Array.isArray(wanted)) return JSON.stringify(actual) === JSON.stringify(wanted);
  if (actual === null || typeof actual !== 'object') return false;
  return Object.entries(wanted).every(([k, v]) => contains((actual as Record<string, unknown>)[k], v));
}

/**
 * Replays one request through the candidate: its mapping (a dry run, nothing dispatched), then,
 * for an agent action, its agent's turn (`repeat` times) with the recording's tool results, and
 * compares with what the recording says happened.
 */
export async function replayRequest(deps: EvalDeps, input: ReplayInput, options: EvalRunOptions & { model?: string }): Promise<EvalCase> {
  const recorded = input.receipt ? await recordedSide(deps, input.receipt) : undefined;
  const outcome = await dryRun(deps.engine, input.request, input.receivedAt);
  const candidate = mappingSide(outcome);
  const intended: EvalToolCall[] = candidate.outcome === 'tool' ? [...candidate.toolCalls] : [];
  let repeats: EvalCase['repeats'];
  if (outcome.type === 'action' && outcome.action.kind === 'agent') {
    const action = outcome.action;
    const turns = [];
    for (let i = 0; i < options.repeat; i++) turns.push(await candidateTurn(deps, input, action, recorded?.calls ?? [], options));
    const first = turns[0]!;
    candidate.toolCalls = first.calls;
    candidate.ms = first.ms;
    if (first.outcome) {
      const { usage, modelRef } = first.outcome;
      Object.assign(candidate, {
        reply: first.outcome.text,
        runStatus: 'succeeded',
        model: modelRef,
        tokens: { prompt: usage.prompt_tokens, completion: usage.completion_tokens },
        cost: modelCost(deps.config.models.prices, modelRef, usage.prompt_tokens, usage.completion_tokens),
      });
    } else Object.assign(candidate, { reply: null, runStatus: 'failed', runError: first.error });
    intended.push(...first.calls.filter((c) => c.by === 'not-executed'));
    if (options.repeat > 1) {
      const replies = new Set(turns.map((t) => t.outcome?.text ?? `failed: ${t.error}`));
      const callSets = new Set(turns.map((t) => JSON.stringify(t.calls.map((c) => [c.tool, c.arguments]))));
      repeats = { runs: turns.length, distinctReplies: replies.size, distinctToolCalls: callSets.size };
    }
  }
  const toolCallDiff = diffToolCalls(recorded?.side.toolCalls ?? [], candidate.toolCalls);
  const changes = changesOf(recorded?.side, candidate, toolCallDiff);
  const result: EvalCase = {
    id: input.id,
    source: input.source,
    ...(input.label && { label: input.label }),
    path: input.request.path,
    receivedAt: input.receivedAt,
    ...(recorded && { recorded: recorded.side }),
    candidate,
    changes,
    toolCallDiff,
    intended,
    ...(repeats && { repeats }),
  };
  if (input.expect) result.expectations = checkExpectations(input.expect, candidate);
  if (options.judge && changes.includes('reply') && recorded?.side.reply && candidate.reply) {
    try {
      result.judge = await judgeReply(deps.models, options.judge.model, options.judge.rubric, candidate.message ?? '', recorded.side.reply, candidate.reply);
    } catch (error) {
      result.judge = { error: error instanceof Error ? error.message : String(error) };
    }
  }
  return result;
}
