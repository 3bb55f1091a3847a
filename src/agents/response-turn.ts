import { deadline } from '../time/deadline.js';
import { HeraldError } from '../errors.js';
import type { ModelOptions } from '../models/provider.js';
import { randomHex, timeOrderedHex } from '../utils/random-hex.js';
import type { SessionMessage, StateRepo } from '../store/port.js';
import type { AgentConfig } from './agent-directory.js';
import { agentTurn, reserveCall, type AgentTurnDeps, type TurnDelta, type TurnOutcome, type UsageAttribution } from './agent-turn.js';
import { requireClientTools, type ClientToolsUse } from './client-tools.js';
import type { ChatInputMessage } from './conversation.js';
import { modelFailure } from './model-call-error.js';
import { turnModelRefs } from './turn-prompt.js';
import { responseHistory, responseStore, type ResponseFileSearch, type ResponseRecord } from './response-record.js';
import type { KnowledgePassage } from '../knowledge/knowledge-passage.js';
import { checkToolResults, toolMeta } from './tool-messages.js';

export interface ResponseTurnDeps extends AgentTurnDeps {
  state: StateRepo;
}

export interface ResponseTurnInput {
  agent: AgentConfig;
  /** whose the response is (conversationOwner of the API key) */
  owner: string;
  /**
   * the request's input items as messages: the last user one is the new question; `function_call`
   * items are assistant messages with tool calls, `function_call_output` items tool messages
   */
  input: ChatInputMessage[];
  /** names input item i in an error (`input[2].call_id`) */
  inputParam?: (i: number) => string;
  instructions?: string;
  previousResponseId?: string;
  /** false: answer without keeping the response (it cannot be fetched or continued) */
  store: boolean;
  metadata?: Record<string, string>;
  options?: ModelOptions;
  /** the client tools or structured output asked for: the agent's model must be able to take them */
  clientTools?: ClientToolsUse;
  /**
   * the request's file_search tool: the turn searches with it instead of the agent's knowledge,
   * and the response has a `file_search_call` item (with the passages when `includeResults`)
   */
  fileSearch?: { search: (question: string) => Promise<KnowledgePassage[]>; includeResults: boolean };
  /** the request's tools and text format, kept for the response object */
  echo?: Pick<ResponseRecord, 'tools' | 'toolChoice' | 'parallelToolCalls' | 'textFormat'>;
  /** whom its tokens count against (the API key) */
  usage?: UsageAttribution;
}

export interface ResponseTurn {
  id: string;
  outputItemId: string;
  createdAt: number;
  /** the output item id of the turn's tool call `index` (one id per call, streamed or stored) */
  callItemId(index: number): string;
  /** the file_search_call item (set when the request has a file_search tool); `found` once it searched */
  fileSearch?: ResponseFileSearch & { found?: KnowledgePassage[] };
  /** runs the turn; its return value is the record (stored by then unless `store` was false) */
  run(options: { stream?: boolean; signal?: AbortSignal }): AsyncGenerator<TurnDelta, { record: ResponseRecord; outcome: TurnOutcome }, undefined>;
}

/**
 * A Responses API turn (POST /v1/responses) on the one agent turn: the previous response is
 * checked first, so an unknown one is refused before anything is sent; the history is the chain
 * of previous responses; the answer is kept as a response record instead of a session transcript.
 * A turn continues with a new user message, or with `function_call_output` items answering the
 * calls of the previous response (or of `function_call` items sent inline).
 */
export async function openResponseTurn(deps: ResponseTurnDeps, request: ResponseTurnInput): Promise<ResponseTurn> {
  const { agent } = request;
  const { timeoutSeconds, historyLimit } = deps.config.agents.defaults;
  requireClientTools(deps, agent, request.clientTools);
  const responses = responseStore(deps.state);
  let history: SessionMessage[] = [];
  if (request.previousResponseId !== undefined) {
    const previous = await responses.get(request.previousResponseId);
    if (!previous || previous.agentId !== agent.id || (previous.owner !== undefined && previous.owner !== request.owner)) {
      throw new HeraldError('HERALD_RESPONSE_NOT_FOUND', `No response "${request.previousResponseId}" of the agent "${agent.id}".`, { param: 'previous_response_id' });
    }
    history = await responseHistory(responses, previous, historyLimit);
  }

  const createdAt = Date.now();
  const meta = { agentId: agent.id, ...(request.metadata && { metadata: request.metadata }) };
  const incoming: SessionMessage[] = request.input.map((m) => ({
    role: m.role === 'developer' ? 'system' : m.role,
    content: m.content,
    createdAt,
    meta: { ...meta, ...toolMeta(m) },
  }));
  const lastUser = incoming.findLastIndex((m) => m.role === 'user');
  const continues = lastUser < 0 && incoming.some((m) => m.role === 'tool');
  if (lastUser < 0 && !continues) throw new HeraldError('HERALD_INVALID_FIELD', 'input must hold a user message or function_call_output items', { param: 'input' });
  // the tool results answer calls just before them: the previous response's, or function_call items sent inline
  const before = history.at(-1);
  checkToolResults(
    [...(before ? [{ role: before.role, toolCalls: (before.meta?.toolCalls ?? []) as never }] : []), ...request.input],
    (i) => (before && i === 0 ? undefined : (request.inputParam ?? ((j) => `input[${j}]`))(i - (before ? 1 : 0))),
  );
  // a continuation searches knowledge with the question its tool calls serve
  const question = continues ? (history.findLast((m) => m.role === 'user')?.content ?? '') : incoming[lastUser]!.content;
  // instructions apply to this response only (OpenAI's rule): a system message the next one does not inherit
  const system: SessionMessage[] = request.instructions ? [{ role: 'system', content: request.instructions, createdAt }] : [];
  const earlier = [...system, ...history, ...(continues ? [] : incoming.slice(0, lastUser))];
  const continuation = continues ? incoming : incoming.slice(lastUser + 1);

  // time-ordered, as conversation ids: its session's rows go to the end of the indexes
  const id = `resp_${timeOrderedHex(12)}`;
  const outputItemId = `msg_${randomHex(12)}`;
  // the model call's estimate is reserved against the budgets before anything is answered (a streamed response past one is a 429)
  const reserving = reserveCall(deps, { agent, usage: request.usage }, { messages: [...earlier, ...(continues ? [] : [incoming[lastUser]!]), ...continuation], maxTokens: request.options?.maxTokens }, turnModelRefs(deps.config, agent)[0]!);
  const reservation = reserving instanceof Promise ? await reserving : reserving;
  const callItemIds: string[] = [];
  const callItemId = (index: number) => (callItemIds[index] ??= `fc_${randomHex(12)}`);
  const fileSearch = request.fileSearch && { id: `fs_${randomHex(12)}`, queries: [question], includeResults: request.fileSearch.includeResults, found: undefined as KnowledgePassage[] | undefined };
  const search =
    request.fileSearch &&
    (async (q: string) => {
      const found = await request.fileSearch!.search(q);
      fileSearch!.found = found;
      return found;
    });
  return {
    id,
    outputItemId,
    createdAt,
    callItemId,
    ...(fileSearch && { fileSearch }),
    async *run({ stream, signal }) {
      const limit = deadline(timeoutSeconds * 1000, signal);
      let record: ResponseRecord | undefined;
      try {
        const outcome = yield* agentTurn(deps, {
          agent,
          purpose: 'chat',
          sessionKey: `response:${id}`,
          history: earlier,
          prompt: continues ? undefined : question,
          continuation,
          question,
          retrieve: true,
          ...(search && { search }),
          options: request.options,
          signal: limit.signal,
          stream,
          incoming: [],
          ...(request.usage && { usage: request.usage }),
          ...(reservation !== undefined && { reservation }),
          record: async (_transcript, outcome) => {
            record = {
              id,
              agentId: agent.id,
              owner: request.owner,
              createdAt,
              previousResponseId: request.previousResponseId ?? null,
              instructions: request.instructions ?? null,
              input: incoming,
              output: outcome.text,
              ...(outcome.refusal && { refusal: outcome.refusal }),
              outputItemId,
              finishReason: outcome.finishReason,
              knowledge: outcome.knowledge,
              ...(fileSearch && { fileSearch: { id: fileSearch.id, queries: fileSearch.queries, includeResults: fileSearch.includeResults } }),
              usage: outcome.usage,
              metadata: request.metadata ?? {},
              maxOutputTokens: request.options?.maxTokens ?? null,
              temperature: request.options?.temperature ?? null,
              ...(outcome.toolCalls.length && {
                toolCalls: outcome.toolCalls.map((c, i) => ({ id: callItemId(i), call_id: c.id, name: c.function.name, arguments: c.function.arguments })),
              }),
              ...request.echo,
            };
            if (request.store) await responses.put(record);
          },
        });
        return { record: record!, outcome };
      } catch (error) {
        throw modelFailure(error, limit.timedOut, timeoutSeconds);
      } finally {
        limit.clear();
      }
    },
  };
}
