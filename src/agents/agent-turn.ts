import type { HeraldConfig } from '../config/schema.js';
import { parseDuration } from '../config/sections/duration-schema.js';
import type { KnowledgePassage } from '../knowledge/knowledge-passage.js';
import type { ModelRegistry } from '../models/model-registry.js';
import { signalOf, type ModelRequest, type ModelToolCall, type ModelUsage } from '../models/provider.js';
import type { SessionMessage, SessionsRepo, ToolCallRecord, ToolCallsRepo } from '../store/port.js';
import { assembleTurn } from './turn-prompt.js';
import { copyWith } from '../utils/copy-with.js';
import { packedMap } from '../utils/packed-map.js';
import type { Budgets } from '../accounts/budgets.js';
import type { UsageRecorder } from '../accounts/usage-recorder.js';
import type { Toolbox } from '../tools/toolbox.js';
import { NO_TOOLS, type TurnTools } from '../tools/turn-tools.js';
import { resumeRound } from './tool-use/resume-round.js';
import type { TurnCheckpoint } from './tool-use/tool-ledger.js';
import { runToolRound, type RoundContext } from './tool-use/tool-round.js';
import { toolDefinitions } from './tool-use/tool-definitions.js';
import type { AgentTurnInput, TurnFields } from './turn-inputs.js';
import { askModel, type TurnDelta } from './model-answer.js';
import { addUsage, estimateUsage, recordUsage, reserveCall } from './turn-usage.js';
import { answerMessage, sessionMessageOf } from './turn-transcript.js';
import type { ModelAnswer, TurnOutcome } from './turn-outcome.js';

export type { AgentTurnInput } from './turn-inputs.js';

const NO_NAMES: ReadonlySet<string | undefined> = new Set();

/** passages of the agent's knowledge base a turn's model sees */
export const PASSAGES_PER_TURN = 4;

/** the agent's knowledge base; sync or async, so a networked store fits */
export interface KnowledgeSearch {
  search(agentId: string, question: string, limit: number): KnowledgePassage[] | Promise<KnowledgePassage[]>;
}

export interface AgentTurnDeps {
  config: HeraldConfig;
  models: ModelRegistry;
  sessions: SessionsRepo;
  knowledge?: KnowledgeSearch;
  /** records each turn's tokens (turns with a `usage` attribution) */
  usage?: UsageRecorder;
  /** the budgets of keys and agents, checked before a turn */
  budgets?: Budgets;
  /** told of each tool call's end (the metrics) */
  onToolCallFinished?: RoundContext['onCallFinished'];
  /** the tools a turn may be granted (tools.mcpServers and the built-ins) */
  toolbox?: Toolbox;
  /** where tool calls are recorded */
  toolCalls?: ToolCallsRepo;
}

/** what a turn came to, as a value: its caller records it (a run completes or pauses, a chat appends it) */
export type TurnResult =
  /**
   * the model answered: the transcript to keep (empty for an answer left out of it, a heartbeat's
   * idle ack or a chat completion with `store: false`), and the store's write of the last call's
   * tokens (absent for a turn whose tokens count against no one)
   */
  | { kind: 'answered'; outcome: TurnOutcome; transcript: SessionMessage[]; recorded?: Promise<void> }
  /** a call waits for a person's approval: where the turn stands is on `outcome.paused` */
  | { kind: 'paused'; outcome: TurnOutcome & Required<Pick<TurnOutcome, 'paused'>> }
  /** a model call failed (an abort included: ModelCallError), or a tool round was refused; nothing was kept */
  | { kind: 'failed'; error: unknown };

/**
 * The one agent turn of herald, for hook runs, chat completions (plain and streamed), responses
 * and heartbeats: read the history, retrieve knowledge, assemble the prompt, call the model, run
 * the tool rounds, and say what happened as a value. Streamed, it hands the answer's deltas to
 * `onDelta` as they come (synchronously, as the model's stream is read: no promise per token).
 * It writes no transcript, so a failed or aborted call leaves no half a turn behind; its tokens,
 * though, are recorded (estimated from the prompt and what was generated), so a budget counts
 * them. The answer's tokens are recorded as it returns, so its caller's write of the transcript,
 * in the same tick, goes in the same commit.
 */
export function takeAgentTurn(deps: AgentTurnDeps, asked: AgentTurnInput, onDelta?: (delta: TurnDelta) => void): Promise<TurnResult> {
  return computeTurn(deps, asked, onDelta).catch((error: unknown) => ({ kind: 'failed' as const, error }));
}

/**
 * A turn whose transcript is the session's: appended to it once answered. A failure is thrown
 * (ModelCallError for the model call's, an abort included): each caller maps it to its surface.
 * It returns once what the turn keeps is stored: its transcript, which shares its commit with the
 * tokens' record, or, with no transcript to keep, that record alone.
 */
export async function runAgentTurn(deps: AgentTurnDeps, input: AgentTurnInput, onDelta?: (delta: TurnDelta) => void): Promise<TurnOutcome> {
  // a failure is thrown as computeTurn throws it: not made a value to be thrown again (a promise fewer)
  const result = await computeTurn(deps, input, onDelta);
  if (result.kind === 'failed') throw result.error;
  const fields: TurnFields = input;
  if (result.kind === 'answered') {
    if (result.transcript.length) await deps.sessions.appendMany(fields.sessionKey, result.transcript, fields.freshSession);
    else await result.recorded;
  }
  return result.outcome;
}

async function computeTurn(deps: AgentTurnDeps, asked: AgentTurnInput, onDelta?: (delta: TurnDelta) => void): Promise<TurnResult> {
  const input: TurnFields = asked;
  const { config } = deps;
  const { resume } = input;
  const history = resume ? [] : (input.history ?? (await deps.sessions.messages(input.sessionKey, config.agents.defaults.historyLimit)));
  // a turn with a question searches knowledge with it (a heartbeat has none)
  const found =
    resume || input.question === undefined
      ? []
      : input.search
        ? input.search(input.question)
        : (deps.knowledge?.search(input.agent.id, input.question, PASSAGES_PER_TURN) ?? []);
  // an answer at hand (an agent without documents) is not awaited: the model request goes out in this same call
  const knowledge = Array.isArray(found) ? found : await found;
  const { provider, resolved, request, refs } = turnRequest(deps, input, history, knowledge);
  // server-side tools only for a model that takes tools; the embedded one would ignore them
  const tools = input.tools?.specs.length && input.ledger && provider.clientTools ? input.tools : undefined;
  const clientTools = (request.extra?.tools as unknown[] | undefined) ?? [];
  // the names only a turn with both kinds of tools asks for (most turns have neither)
  const clientNames = tools && clientTools.length ? new Set(packedMap(clientTools, (t) => (t as { function?: { name?: string } }).function?.name).filter(Boolean)) : NO_NAMES;
  if (tools) request.extra = copyWith(request.extra, { tools: [...clientTools, ...toolDefinitions(tools.specs)] });
  // a turn without server-side tools (most chats) makes no closure for them
  const isServerCall = tools ? (call: ModelToolCall) => tools.byName(call.function.name) !== undefined || !clientNames.has(call.function.name) : NO_SERVER_CALLS;
  const round = tools && roundContext(deps, input, tools);

  // the turn's server-side exchange (assistant calls, tool results) starts after the prompt
  const exchangeFrom = resume ? (resume.exchangeFrom ?? resume.messages.length) : request.messages.length;
  let callsMade = resume?.callsMade ?? 0;
  let spent: ModelUsage | undefined = resume?.usage;
  let answer: ModelAnswer;
  // the caller's reservation is the first call's; one not used (a turn paused before it) is given back
  let reservation = input.reservation;
  /** the reservation of the call whose answer ends the turn, settled with its record */
  let answered: number | undefined;
  try {
    if (resume && input.ledger) {
      // the turn's budgets are checked as it is admitted: a spent one refuses it before a call of its checkpoint runs
      const reserving = reservation ?? reserveCall(deps, input, request, resolved.ref);
      reservation = reserving instanceof Promise ? await reserving : reserving;
      // every call of the checkpoint is answered, even with none of its tools granted now (its server
      // gone, a reload): a model sent calls without their results refuses the request
      const resumed = await resumeRound(round ?? roundContext(deps, input, input.tools ?? NO_TOOLS), resume);
      if (resumed.pending.length) return paused(resume, resumed.pending, knowledge, callsMade);
      request.messages.push(...resumed.messages);
    }
    for (let roundNo = (resume?.round ?? -1) + 1; ; roundNo++) {
      // each model call reserves its estimate against the budgets before it is made (429 past one)
      // a turn without budgets awaits nothing here
      const reserving = reservation ?? reserveCall(deps, input, request, resolved.ref);
      const held = reserving instanceof Promise ? await reserving : reserving;
      reservation = undefined;
      answered = held;
      answer = await askModel(deps, input, provider, request, refs, resolved.ref, isServerCall, onDelta, held);
      const calls = tools && callsMade < tools.maxToolCalls + 1 ? answer.toolCalls.filter(isServerCall) : [];
      if (!calls.length) {
        // a model that calls server tools past its limit, told not to: its calls are dropped, its words are the answer
        if (tools) answer.toolCalls = answer.toolCalls.filter((c) => !isServerCall(c));
        break;
      }
      // an intermediate model turn's tokens count at once, so the next turn's budget check sees them
      const used = answer.usage ?? (await estimateUsage(request, answer));
      recordUsage(deps, input, answer, used, held);
      spent = addUsage(spent, used);
      request.messages.push({ role: 'assistant', content: answer.text, tool_calls: calls });
      const checkpoint: TurnCheckpoint = { messages: [...request.messages], round: roundNo, callsMade, usage: spent, modelRef: answer.modelRef, exchangeFrom };
      const result = await runToolRound(round!, calls, checkpoint);
      callsMade += calls.length;
      if (result.pending.length) return paused(checkpoint, result.pending, knowledge, callsMade);
      request.messages.push(...result.messages);
      const forClient = answer.toolCalls.filter((c) => !isServerCall(c));
      if (forClient.length) {
        // the client's calls end the turn, after the server's were answered: the client runs its own
        answer = { ...answer, text: '', refusal: '', toolCalls: forClient };
        break;
      }
      // past the limit the model may only answer (or call the client's tools): OpenAI takes tool_choice only beside tools
      if (callsMade >= tools!.maxToolCalls) request.extra = copyWith(request.extra, clientTools.length ? { tool_choice: 'auto', tools: clientTools } : { tool_choice: 'none' });
    }
  } finally {
    if (reservation !== undefined) deps.usage?.settle(reservation, undefined);
  }
  const lastUsage = answer.usage ?? (await estimateUsage(request, answer));
  return answeredTurn(deps, input, { request, answer, lastUsage, spent, knowledge, callsMade, exchangeFrom, reservation: answered });
}

const NO_SERVER_CALLS = () => false;

/** where a tool round of the turn runs: its granted tools, ledger, attribution and time limits */
function roundContext(deps: AgentTurnDeps, input: TurnFields, granted: TurnTools): RoundContext {
  return {
    tools: granted,
    ledger: input.ledger!,
    attribution: { agentId: input.agent.id, mappingId: input.usage?.mappingId, keyName: input.usage?.keyName },
    signal: signalOf(input),
    approvalTimeoutMs: parseDuration(deps.config.tools.approvalTimeout),
    onCallFinished: deps.onToolCallFinished,
  };
}

/**
 * The turn's request to its first model: the prompt's inputs by name, not a copy of the whole
 * turn input with the history and knowledge written over it. A resumed turn's messages are its checkpoint's.
 */
export function turnRequest(deps: Pick<AgentTurnDeps, 'models' | 'config'>, input: TurnFields, history: SessionMessage[], knowledge: KnowledgePassage[]) {
  const { resume } = input;
  const turn = assembleTurn(
    {
      agent: input.agent,
      model: input.model,
      // a response is a chat to the model
      purpose: input.purpose === 'response' ? 'chat' : input.purpose,
      history,
      prompt: resume ? undefined : input.prompt,
      promptWords: resume ? undefined : input.promptWords,
      continuation: resume ? undefined : input.continuation,
      question: input.question,
      events: input.events,
      knowledge,
      options: input.options,
      signal: input.signal,
      limit: input.limit,
    },
    deps.models,
    deps.config,
  );
  if (input.onOpen) turn.request.onOpen = input.onOpen;
  if (resume) turn.request.messages = [...resume.messages];
  return turn;
}

/** where a turn stands when its last model call answered: what `answeredTurn` makes its outcome of */
export interface LastAnswer {
  request: ModelRequest;
  answer: ModelAnswer;
  /** the last call's tokens: the provider's count, else the estimate */
  lastUsage: ModelUsage;
  /** the tokens of the turn's calls before it */
  spent: ModelUsage | undefined;
  knowledge: KnowledgePassage[];
  callsMade: number;
  /** where the turn's server-side exchange starts in the request's messages */
  exchangeFrom: number;
  /** the last call's budget reservation, settled with its record */
  reservation: number | undefined;
}

/** the answered turn as a value: its outcome and transcript, its last call's tokens recorded */
export function answeredTurn(deps: AgentTurnDeps, input: TurnFields, last: LastAnswer): TurnResult {
  const { request, answer, lastUsage, spent } = last;
  const { text, refusal, modelRef, failures } = answer;
  let { finishReason, toolCalls } = answer;
  // some OpenAI-compatible servers (older Ollama) say `stop` beside tool calls; clients look for `tool_calls`
  if (toolCalls.length && finishReason === 'stop') finishReason = 'tool_calls';
  if (!toolCalls.length && finishReason === 'tool_calls') finishReason = 'stop';
  const outcome: TurnOutcome = { text, finishReason, usage: spent ? addUsage(spent, lastUsage) : lastUsage, knowledge: last.knowledge, modelRef, failures, toolCalls, toolCallsMade: last.callsMade };
  if (refusal) outcome.refusal = refusal;
  let transcript: SessionMessage[] = [];
  if (!input.keep || input.keep(text)) {
    // the fields each message of the answer carries, made once for them all (read, never changed, by each)
    const answered = input.answer?.(outcome);
    transcript = [...input.incoming];
    // by index: no slice of the request's messages made for a turn without a server-side exchange (most)
    for (let i = last.exchangeFrom; i < request.messages.length; i++) transcript.push(sessionMessageOf(request.messages[i]!, answered));
    transcript.push(answerMessage(outcome, refusal, answered));
  }
  // the model answered, so its tokens are spent whether or not the transcript is kept
  const recorded = recordUsage(deps, input, answer, lastUsage, last.reservation);
  return { kind: 'answered', outcome, transcript, recorded };
}

function paused(checkpoint: TurnCheckpoint, pending: ToolCallRecord[], knowledge: KnowledgePassage[], callsMade: number): TurnResult {
  const outcome = {
    text: '',
    finishReason: 'tool_calls',
    usage: checkpoint.usage,
    knowledge,
    modelRef: checkpoint.modelRef,
    failures: [],
    toolCalls: [],
    toolCallsMade: callsMade,
    paused: { pending, checkpoint: { ...checkpoint, callsMade } },
  };
  return { kind: 'paused', outcome };
}


