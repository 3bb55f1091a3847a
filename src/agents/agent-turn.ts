import type { HeraldConfig } from '../config/schema.js';
import { parseDuration } from '../config/sections/duration-schema.js';
import type { KnowledgePassage } from '../knowledge/knowledge-passage.js';
import { completeWithFallbacks } from '../models/complete-with-fallbacks.js';
import type { ModelRegistry } from '../models/model-registry.js';
import { EMBEDDED_PROVIDER } from '../models/model-refs.js';
import type { ModelOptions, ModelRequest, ModelStreamEvent, ModelToolCall, ModelUsage } from '../models/provider.js';
import { randomHex } from '../utils/random-hex.js';
import type { SessionMessage, SessionsRepo } from '../store/port.js';
import type { AgentConfig } from './agent-directory.js';
import { ModelCallError } from './model-call-error.js';
import { assembleTurn } from './turn-prompt.js';
import { copyWith } from '../utils/copy-with.js';
import type { Budgets } from '../accounts/budgets.js';
import type { UsageRecord, UsageRecorder } from '../accounts/usage-recorder.js';
import type { UsageSource } from '../store/port.js';
import { promptWordCount } from '../utils/word-count.js';
import { estimatePromptTokens, estimateTokens } from '../models/token-estimate.js';
import type { ChatMessage, ModelResponse } from '../models/provider.js';
import { toolMeta } from './tool-use/tool-messages.js';
import type { ToolCallRecord, ToolCallsRepo } from '../store/port.js';
import type { Toolbox } from '../tools/toolbox.js';
import { NO_TOOLS, type TurnTools } from '../tools/turn-tools.js';
import { resumeRound } from './tool-use/resume-round.js';
import type { ToolLedger, TurnCheckpoint } from './tool-use/tool-ledger.js';
import { runToolRound, type RoundContext } from './tool-use/tool-round.js';
import { toolDefinitions } from './tool-use/tool-definitions.js';
import type { AgentTurnInput, HeartbeatTurnInput, HookRunTurnInput, TurnFields } from './turn-inputs.js';

export type { AgentTurnInput } from './turn-inputs.js';

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

/** what a turn's tokens count against */
export interface UsageAttribution {
  source: UsageSource;
  keyName?: string;
  mappingId?: string;
}

/**
 * a piece of the answer as it streams: text, a piece of the model's refusal, or a piece of a
 * client tool call (the first of call `index` has its id and name)
 */
export type TurnDelta = { type: 'delta'; text: string } | { type: 'refusal'; text: string } | ToolCallPiece;

export type ToolCallPiece = Extract<ModelStreamEvent, { type: 'tool_call' }>;

export interface TurnOutcome {
  text: string;
  /** the model declined: its explanation (OpenAI's `refusal`), passed on as such, apart from the text */
  refusal?: string;
  finishReason: string;
  /** the provider's count, or an estimate in words when it gave none */
  usage: ModelUsage;
  /** the passages the model was given (the answer's citations) */
  knowledge: KnowledgePassage[];
  /** the model ref that answered */
  modelRef: string;
  /** the models of the chain that failed before it, with their reasons */
  failures: { ref: string; error: string }[];
  /** the client tools the model called (the client runs them and continues the turn with their results) */
  toolCalls: ModelToolCall[];
  /** server-side tool calls made in this turn */
  toolCallsMade: number;
  /**
   * the turn stopped for a person's approval: the calls waiting, and where the turn stands. Nothing
   * was recorded (`record` is not called): the caller keeps the turn (a run waits as waiting_approval).
   */
  paused?: { pending: ToolCallRecord[]; checkpoint: TurnCheckpoint };
}

/**
 * The one agent turn of herald, for hook runs, chat completions (plain and streamed) and
 * heartbeats: read the history, retrieve knowledge, assemble the prompt, call the model, then
 * record the turn's messages in one write. Streamed, it hands the answer's deltas to `onDelta`
 * as they come (synchronously, as the model's stream is read: no promise per token) and records
 * only at the end, so a failed or aborted call leaves no half a turn behind; its tokens, though,
 * are recorded (estimated from the prompt and what was generated), so a budget counts them.
 * The model call's failures (an abort included) are thrown as ModelCallError, the rest as they
 * are: each caller maps them to its surface.
 */
export async function runAgentTurn(deps: AgentTurnDeps, asked: AgentTurnInput, onDelta?: (delta: TurnDelta) => void): Promise<TurnOutcome> {
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
  // the prompt's inputs by name, not a copy of the whole turn input with these two written over it
  const { provider, resolved, request, refs } = assembleTurn(
    {
      agent: input.agent,
      model: input.model,
      // a response is a chat to the model
      purpose: input.purpose === 'response' ? 'chat' : input.purpose,
      history,
      prompt: resume ? undefined : input.prompt,
      continuation: resume ? undefined : input.continuation,
      question: input.question,
      events: input.events,
      knowledge,
      options: input.options,
      signal: input.signal,
    },
    deps.models,
    config,
  );
  if (input.onOpen) request.onOpen = input.onOpen;
  if (resume) request.messages = [...resume.messages];
  // server-side tools only for a model that takes tools; the embedded one would ignore them
  const tools = input.tools?.specs.length && input.ledger && provider.clientTools ? input.tools : undefined;
  const clientTools = (request.extra?.tools as unknown[] | undefined) ?? [];
  const clientNames = new Set(clientTools.map((t) => (t as { function?: { name?: string } }).function?.name).filter(Boolean));
  if (tools) request.extra = copyWith(request.extra, { tools: [...clientTools, ...toolDefinitions(tools.specs)] });
  const isServerCall = (call: ModelToolCall) => tools !== undefined && (tools.byName(call.function.name) !== undefined || !clientNames.has(call.function.name));
  const roundWith = (granted: TurnTools): RoundContext => ({
    tools: granted,
    ledger: input.ledger!,
    attribution: { agentId: input.agent.id, mappingId: input.usage?.mappingId, keyName: input.usage?.keyName },
    signal: input.signal,
    approvalTimeoutMs: parseDuration(config.tools.approvalTimeout),
    onCallFinished: deps.onToolCallFinished,
  });
  const round = tools && roundWith(tools);

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
      const resumed = await resumeRound(round ?? roundWith(input.tools ?? NO_TOOLS), resume);
      if (resumed.pending.length) return pausedOutcome(resume, resumed.pending, knowledge, callsMade);
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
      if (result.pending.length) return pausedOutcome(checkpoint, result.pending, knowledge, callsMade);
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
  const { text, refusal, modelRef, failures } = answer;
  let { finishReason, toolCalls } = answer;
  // some OpenAI-compatible servers (older Ollama) say `stop` beside tool calls; clients look for `tool_calls`
  if (toolCalls.length && finishReason === 'stop') finishReason = 'tool_calls';
  if (!toolCalls.length && finishReason === 'tool_calls') finishReason = 'stop';
  const usage = answer.usage;

  const lastUsage = usage ?? (await estimateUsage(request, answer));
  const outcome: TurnOutcome = { text, finishReason, usage: spent ? addUsage(spent, lastUsage) : lastUsage, knowledge, modelRef, failures, toolCalls, toolCallsMade: callsMade };
  if (refusal) outcome.refusal = refusal;
  const exchange = request.messages.slice(exchangeFrom).map((m) => sessionMessageOf(m, input.answer?.(outcome)));
  const transcript = input.keep && !input.keep(text) ? [] : [...input.incoming, ...exchange, answerMessage(outcome, refusal, input.answer?.(outcome))];
  const recording = input.record ? input.record(transcript, outcome) : deps.sessions.appendMany(input.sessionKey, transcript, input.freshSession);
  // in the same tick as the transcript's write, so both go in one commit; the model answered, so
  // its tokens are spent whether or not the transcript is kept
  recordUsage(deps, input, answer, lastUsage, answered);
  await recording;
  return outcome;
}

/**
 * The model's answer as the session keeps it, built field by field (an object literal spreading
 * `answer` takes V8's slow path for each field written after it): a refusal is what the model said
 * in the conversation, so the next turn's model sees it as its answer; the client tool calls are
 * kept with it, so a continuation sends the upstream the calls its tool results answer.
 */
function answerMessage(outcome: TurnOutcome, refusal: string, answer: Pick<SessionMessage, 'runId' | 'meta'> | undefined): SessionMessage {
  const message: SessionMessage = { role: 'assistant', content: outcome.text || refusal, createdAt: Date.now() };
  if (answer?.runId !== undefined) message.runId = answer.runId;
  const { toolCalls } = outcome;
  const meta = toolCalls.length || refusal ? { ...answer?.meta, ...(toolCalls.length && { toolCalls }), ...(refusal && { refusal }) } : answer?.meta;
  if (meta !== undefined) message.meta = meta;
  return message;
}

/**
 * on a failure, try the chain of agents.defaults.model (override, fallbacks, primary) in order:
 * a hook run's and a heartbeat's; a chat's or a response's first model's failure is its own (a 502)
 */
const triesFallbacks = (input: TurnFields) => input.purpose === 'run' || input.purpose === 'heartbeat';

/** one model call's answer, streamed or not, from whichever model of the chain gave it */
interface ModelAnswer {
  text: string;
  refusal: string;
  usage?: ModelUsage;
  finishReason: string;
  modelRef: string;
  failures: TurnOutcome['failures'];
  toolCalls: ModelToolCall[];
}

/**
 * Asks the model once. Streamed, the answer's deltas go to `onDelta` as they come, and so do the
 * pieces of the client's tool calls (numbered among the client's own); the pieces of calls of
 * server-side tools are held back: herald answers those itself.
 */
async function askModel(
  deps: AgentTurnDeps,
  input: TurnFields,
  provider: ReturnType<typeof assembleTurn>['provider'],
  request: ModelRequest,
  refs: string[],
  ref: string,
  isServerCall: (call: ModelToolCall) => boolean,
  onDelta?: (delta: TurnDelta) => void,
  /** the call's budget reservation, settled here when the call fails */
  reservation?: number,
): Promise<ModelAnswer> {
  const answer: ModelAnswer = { text: '', refusal: '', finishReason: 'stop', modelRef: ref, failures: [], toolCalls: [] };
  try {
    if (input.stream) {
      const clientIndex = new Map<number, number | null>();
      const take = (event: ModelStreamEvent) => {
        if (event.type === 'usage') answer.usage = event.usage;
        else if (event.type === 'finish') answer.finishReason = event.reason;
        else if (event.type === 'tool_call') {
          const piece = addToolCallPiece(answer.toolCalls, event);
          if (!clientIndex.has(event.index)) {
            const call = answer.toolCalls[event.index]!;
            clientIndex.set(event.index, call.function.name && isServerCall(call) ? null : [...clientIndex.values()].filter((i) => i !== null).length);
          }
          const index = clientIndex.get(event.index);
          if (index !== null && index !== undefined) onDelta?.(index === piece.index ? piece : { ...piece, index });
        } else if (event.type === 'refusal' && event.text) {
          answer.refusal += event.text;
          onDelta?.(event);
        } else if (event.type === 'delta' && event.text) {
          answer.text += event.text;
          onDelta?.(event);
        }
      };
      if (provider.streamEach) await provider.streamEach(request, take);
      else for await (const event of provider.stream(request)) take(event);
      answer.toolCalls = answer.toolCalls.filter(Boolean);
    } else {
      // the chain, tried in order (a stream, once begun, cannot change model: it has none)
      // each model of the chain is asked with its own model name and signal, written over these
      const response: ModelResponse & { ref?: string; failures?: TurnOutcome['failures'] } = triesFallbacks(input)
        ? await completeWithFallbacks(refs, deps.models, request, { signal: request.signal, deadline: input.deadlineAt })
        : await provider.complete(request);
      answer.text = response.text;
      answer.refusal = response.refusal ?? '';
      answer.usage = response.usage;
      answer.finishReason = response.finishReason ?? 'stop';
      if (response.ref) answer.modelRef = response.ref;
      if (response.failures) answer.failures = response.failures;
      answer.toolCalls = response.toolCalls ?? [];
    }
  } catch (error) {
    // aborted (the client went away, the time limit) or failed after the provider read the prompt:
    // what it read and what it generated are spent, estimated, as for a call that ended
    if (answer.text || answer.refusal || answer.toolCalls.length || answer.usage || input.signal?.aborted) await recordCutShort(deps, input, answer, request, reservation);
    else if (reservation !== undefined) deps.usage?.settle(reservation, undefined);
    throw new ModelCallError(error);
  }
  return answer;
}

/** the tokens of a model call cut short: its prompt and what it generated, counted by the model's tokenizer (token-estimate.ts) */
async function recordCutShort(deps: AgentTurnDeps, input: TurnFields, answer: ModelAnswer, request: ModelRequest, reservation: number | undefined): Promise<void> {
  const generated = [answer.text, answer.refusal, ...answer.toolCalls.filter(Boolean).map((c) => `${c.function.name} ${c.function.arguments}`)].filter(Boolean).join(' ');
  const model = answer.modelRef || request.model;
  const prompt = answer.usage?.prompt_tokens ?? (await estimatePromptTokens(request.messages, model));
  writeCallUsage(deps, input, answer, reservation, prompt, Math.max(answer.usage?.completion_tokens ?? 0, await estimateTokens(generated, model)), true);
}

/** one model call's tokens: the provider's count, or herald's estimate (estimateUsage) when it gave none */
function recordUsage(deps: AgentTurnDeps, input: TurnFields, answer: ModelAnswer, usage: ModelUsage, reservation: number | undefined): void {
  writeCallUsage(deps, input, answer, reservation, usage.prompt_tokens, usage.completion_tokens, answer.usage === undefined || answer.modelRef.startsWith(`${EMBEDDED_PROVIDER}/`));
}

/** a model call's tokens under the turn's key, agent and mapping: in place of its reservation when it had one */
function writeCallUsage(deps: AgentTurnDeps, input: TurnFields, answer: ModelAnswer, reservation: number | undefined, promptTokens: number, completionTokens: number, estimated: boolean): void {
  if (!input.usage || !deps.usage) return;
  const call = copyWith(input.usage, { model: answer.modelRef, agentId: input.agent.id, promptTokens, completionTokens, estimated });
  if (reservation === undefined) deps.usage.record(call);
  else deps.usage.settle(reservation, call);
}

/**
 * Reserves a model call's estimate (its prompt, and its max_tokens or
 * agents.defaults.budgetReserveTokens) against the budgets of its key and agent: 429 at once past
 * one. A heartbeat's calls are counted, never refused.
 */
export function reserveCall(deps: AgentTurnDeps, input: Pick<TurnFields, 'usage' | 'agent'>, request: Pick<ModelRequest, 'messages' | 'maxTokens'>, modelRef: string): Promise<number | undefined> | undefined {
  if (!deps.budgets || !deps.usage || !input.usage || input.usage.source === 'heartbeat') return undefined;
  const holders = deps.budgets.holdersOf(input.usage.keyName, input.agent.id);
  if (!holders.length) return undefined;
  return deps.budgets.reserve(
    holders,
    copyWith(input.usage, {
      model: modelRef,
      agentId: input.agent.id,
      promptTokens: promptWordCount(request.messages),
      completionTokens: request.maxTokens ?? deps.config.agents.defaults.budgetReserveTokens,
      estimated: true,
    }),
  );
}

function pausedOutcome(checkpoint: TurnCheckpoint, pending: ToolCallRecord[], knowledge: KnowledgePassage[], callsMade: number): TurnOutcome {
  return {
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
}

const addUsage = (a: ModelUsage | undefined, b: ModelUsage): ModelUsage =>
  a ? { prompt_tokens: a.prompt_tokens + b.prompt_tokens, completion_tokens: a.completion_tokens + b.completion_tokens, total_tokens: a.total_tokens + b.total_tokens } : b;

/** a message of the turn's server-side tool exchange as the session keeps it (tool-messages.ts) */
function sessionMessageOf(m: ChatMessage, answer: Pick<SessionMessage, 'runId' | 'meta'> | undefined): SessionMessage {
  const message: SessionMessage = { role: m.role, content: m.content, createdAt: Date.now() };
  if (answer?.runId !== undefined) message.runId = answer.runId;
  const meta = toolMeta({ toolCalls: m.tool_calls, toolCallId: m.tool_call_id });
  if (Object.keys(meta).length) message.meta = meta;
  return message;
}

/** A hook run's or a heartbeat's turn: never streamed. */
export function completeAgentTurn(deps: AgentTurnDeps, input: HookRunTurnInput | HeartbeatTurnInput): Promise<TurnOutcome> {
  return runAgentTurn(deps, input);
}

/**
 * Adds a streamed piece to the calls being assembled (call `index`: the first piece has its id
 * and name, later ones more arguments) and returns it as the turn streams it; a server that
 * leaves the id out gets one, since the client answers the call by it.
 */
function addToolCallPiece(calls: ModelToolCall[], piece: ToolCallPiece): ToolCallPiece {
  let call = calls[piece.index];
  if (!call) {
    call = calls[piece.index] = { id: piece.id ?? `call_${randomHex(12)}`, type: 'function', function: { name: '', arguments: '' } };
    piece = { ...piece, id: call.id };
  }
  if (piece.name) call.function.name = piece.name;
  if (piece.arguments) call.function.arguments += piece.arguments;
  return piece;
}

/** a call's tokens when its provider counted none: the model's tokenizer over the prompt and the answer (its text and tool calls) */
async function estimateUsage(request: ModelRequest, answer: Pick<ModelAnswer, 'text' | 'toolCalls' | 'modelRef'>): Promise<ModelUsage> {
  const model = answer.modelRef || request.model;
  const calls = answer.toolCalls.filter(Boolean).map((c) => `${c.function.name} ${c.function.arguments}`);
  const prompt_tokens = await estimatePromptTokens(request.messages, model);
  const completion_tokens = await estimateTokens([answer.text, ...calls].filter(Boolean).join(' '), model);
  return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
}
