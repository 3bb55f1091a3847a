import { deadline } from '../../../time/deadline.js';
import { HeraldError } from '../../../errors.js';
import type { ModelOptions, ModelUsage } from '../../../models/provider.js';
import { randomHex, timeOrderedHex } from '../../../utils/random-hex.js';
import type { SessionMessage, StateRepo } from '../../../store/port.js';
import type { AgentConfig } from '../../../agents/agent-directory.js';
import { takeAgentTurn, type AgentTurnDeps } from '../../../agents/agent-turn.js';
import type { TurnOutcome } from '../../../agents/turn-outcome.js';
import type { TurnDelta } from '../../../agents/model-answer.js';
import type { UsageAttribution } from '../../../agents/turn-inputs.js';
import { reserveCall } from '../../../agents/turn-usage.js';
import type { ResponsesTurnInput } from '../../../agents/turn-inputs.js';
import { requireClientTools, type ClientToolsUse } from '../../../agents/tool-use/client-tools.js';
import type { ChatInputMessage } from '../../../agents/conversation.js';
import { modelFailure } from '../../../agents/model-call-error.js';
import { turnModelRefs } from '../../../agents/turn-prompt.js';
import { responseHistory, responseStore, type ResponseFileSearch, type ResponseMcpItem, type ResponseRecord } from './response-record.js';
import type { KnowledgePassage } from '../../../knowledge/knowledge-passage.js';
import { checkToolResults, toolMeta } from '../../../agents/tool-use/tool-messages.js';
import { PushedItems } from '../../../utils/pushed-items.js';
import { responseLedger, type McpItemEvent } from './response-ledger.js';
import { answeredElsewhere, decideApprovals, pausedTurn, type McpApprovalAnswer } from './response-approvals.js';
import { checkMcpTools, countingRemoteAsOne, openResponseTools, type McpToolRequest } from './response-tools.js';

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
  /** whom its tokens count against (the API key); its key name is who decides approvals */
  usage?: UsageAttribution;
  /** the request's `mcp` tools: configured servers by label, remote ones by URL */
  mcp?: McpToolRequest[];
  /** the request's `mcp_approval_response` items: the client's decisions on the previous response's approval requests */
  approvals?: McpApprovalAnswer[];
  /** the request's: stops connecting its MCP servers when the client goes away */
  signal?: AbortSignal;
}

/** what a Responses turn yields as it goes: the answer's pieces, and its MCP output items as they start and end */
export type ResponseTurnEvent = TurnDelta | McpItemEvent;

export interface ResponseTurn {
  id: string;
  outputItemId: string;
  createdAt: number;
  /** the output item id of the turn's tool call `index` (one id per call, streamed or stored) */
  callItemId(index: number): string;
  /** the file_search_call item (set when the request has a file_search tool); `found` once it searched */
  fileSearch?: ResponseFileSearch & { found?: KnowledgePassage[] };
  /** runs the turn; its return value is the record (stored by then unless `store` was false) */
  run(options: { stream?: boolean; signal?: AbortSignal }): AsyncGenerator<ResponseTurnEvent, { record: ResponseRecord; outcome: TurnOutcome }, undefined>;
}

/**
 * A Responses API turn (POST /v1/responses) on the one agent turn: the previous response is
 * checked first, so an unknown one is refused before anything is sent; the history is the chain
 * of previous responses; the answer is kept as a response record instead of a session transcript.
 * A turn continues with a new user message, with `function_call_output` items answering the
 * calls of the previous response (or of `function_call` items sent inline), or with
 * `mcp_approval_response` items deciding its approval requests: then the paused turn goes on
 * from its checkpoint with the tools the request sends again.
 */
export async function openResponseTurn(deps: ResponseTurnDeps, request: ResponseTurnInput): Promise<ResponseTurn> {
  const { agent } = request;
  const { timeoutSeconds, historyLimit } = deps.config.agents.defaults;
  requireClientTools(deps, agent, request.clientTools);
  // before anything is read or connected: a request reaches only the MCP servers config allows
  const servers = checkMcpTools(deps, agent, request.mcp ?? []);
  const responses = responseStore(deps.state);
  let previous: ResponseRecord | undefined;
  if (request.previousResponseId !== undefined) {
    previous = await responses.get(request.previousResponseId);
    if (!previous || previous.agentId !== agent.id || (previous.owner !== undefined && previous.owner !== request.owner)) {
      throw new HeraldError('HERALD_RESPONSE_NOT_FOUND', `No response "${request.previousResponseId}" of the agent "${agent.id}".`, { param: 'previous_response_id' });
    }
  }
  const approvals = request.approvals ?? [];
  const paused = approvals.length ? pausedTurn(previous, approvals, request.input.length) : undefined;
  const history = previous && !paused ? await responseHistory(responses, previous, historyLimit) : [];

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
  if (!paused && lastUser < 0 && !continues) throw new HeraldError('HERALD_INVALID_FIELD', 'input must hold a user message or function_call_output items', { param: 'input' });
  // the tool results answer calls just before them: the previous response's, or function_call items sent inline
  const before = history.at(-1);
  checkToolResults(
    [...(before ? [{ role: before.role, toolCalls: (before.meta?.toolCalls ?? []) as never }] : []), ...request.input],
    (i) => (before && i === 0 ? undefined : (request.inputParam ?? ((j) => `input[${j}]`))(i - (before ? 1 : 0))),
  );
  // a continuation searches knowledge with the question its tool calls serve
  const question = continues ? (history.findLast((m) => m.role === 'user')?.content ?? '') : (incoming[lastUser]?.content ?? '');
  // instructions apply to this response only (OpenAI's rule): a system message the next one does not inherit
  const system: SessionMessage[] = request.instructions ? [{ role: 'system', content: request.instructions, createdAt }] : [];
  const earlier = [...system, ...history, ...(continues ? [] : incoming.slice(0, lastUser))];
  const continuation = continues ? incoming : incoming.slice(lastUser + 1);

  // time-ordered, as conversation ids: its session's rows go to the end of the indexes
  const id = `resp_${timeOrderedHex(12)}`;
  const outputItemId = `msg_${randomHex(12)}`;
  // the model call's estimate is reserved against the budgets before anything is answered (a streamed response past one is a 429)
  // (a resumed turn's first call is asked with its checkpoint's messages)
  const asked = paused ? paused.checkpoint.messages : [...earlier, ...(continues ? [] : [incoming[lastUser]!]), ...continuation];
  const reserving = reserveCall(deps, { agent, usage: request.usage }, { messages: asked, maxTokens: request.options?.maxTokens }, turnModelRefs(deps.config, agent)[0]!);
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

  const toolCalls = deps.toolCalls;
  const opened = await openResponseTools(deps, agent, servers, { listedBefore: previous?.mcpListed ?? [], canApprove: request.store, signal: request.signal });
  // with nowhere to record calls, no server-side tool runs
  const tools = toolCalls && opened.tools;
  const turnDeps = countingRemoteAsOne(deps, servers);
  // a pause is continued once: two continuations at a time would both execute its approved calls
  let claimed = false;
  const release = async () => {
    if (claimed) await responses.releasePause(previous!.id, id);
  };
  try {
    if (paused) {
      if (!tools) {
        const failed = opened.listings.find((l) => l.error)?.error;
        throw new HeraldError(
          'HERALD_INVALID_FIELD',
          `tools: the approval requests of the response ${previous!.id} are answered with the tools they came from: send its mcp tools again${failed ? ` (${failed})` : ''}`,
          { param: 'tools' },
        );
      }
      const holder = await responses.claimPause(previous!.id, id);
      if (holder !== id) throw answeredElsewhere(previous!, holder, approvals[0]!.param);
      claimed = true;
      await decideApprovals(toolCalls!, approvals, request.usage?.keyName ?? 'api');
    }
  } catch (error) {
    await release();
    await opened.close();
    if (reservation !== undefined) deps.usage?.settle(reservation, undefined);
    throw error;
  }

  return {
    id,
    outputItemId,
    createdAt,
    callItemId,
    ...(fileSearch && { fileSearch }),
    async *run({ stream, signal }) {
      const limit = deadline(timeoutSeconds * 1000, signal);
      const pushed = new PushedItems<ResponseTurnEvent>();
      const items: ResponseMcpItem[] = [];
      const itemAt = new Map<string, number>();
      let messageAt: number | undefined;
      const onItem = (event: McpItemEvent) => {
        const at = itemAt.get(event.item.id);
        if (at === undefined) itemAt.set(event.item.id, items.push(event.item) - 1);
        else items[at] = event.item;
        pushed.push(event);
      };
      // the servers were listed before the turn: their items come first
      for (const listing of opened.listings) {
        onItem({ type: 'mcp_item', phase: 'added', item: { ...listing, tools: [], error: null } });
        onItem({ type: 'mcp_item', phase: 'done', item: listing });
      }
      const callsOwner = paused?.callsOwner ?? id;
      const ledger = tools && responseLedger(toolCalls!, callsOwner, { onItem });
      const recordOf = (outcome: TurnOutcome, exchange: SessionMessage[]): ResponseRecord => ({
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
        // a resumed turn's outcome counts the tokens spent before its pause, which the paused response showed
        usage: paused ? usageSince(outcome.usage, paused.checkpoint.usage) : outcome.usage,
        metadata: request.metadata ?? {},
        maxOutputTokens: request.options?.maxTokens ?? null,
        temperature: request.options?.temperature ?? null,
        ...(outcome.toolCalls.length && {
          toolCalls: outcome.toolCalls.map((c, i) => ({ id: callItemId(i), call_id: c.id, name: c.function.name, arguments: c.function.arguments })),
        }),
        ...(items.length && { mcp: items }),
        ...(messageAt !== undefined && { messageAt }),
        ...(opened.listed.length && { mcpListed: opened.listed }),
        ...(exchange.length && { exchange }),
        ...(outcome.paused && { paused: { checkpoint: outcome.paused.checkpoint, pending: outcome.paused.pending.map((r) => r.id), callsOwner } }),
        ...request.echo,
      });
      const common = {
        agent,
        purpose: 'response' as const,
        sessionKey: `response:${id}`,
        options: request.options,
        signal: limit.signal,
        stream,
        incoming: [],
        ...(request.usage && { usage: request.usage }),
        ...(reservation !== undefined && { reservation }),
        ...(tools && ledger && { tools, ledger }),
      };
      const input: ResponsesTurnInput = paused
        ? { ...common, history: [], resume: paused.checkpoint }
        : {
            ...common,
            history: earlier,
            prompt: continues ? undefined : question,
            continuation,
            question,
            ...(search && { search }),
          };
      // the answer's pieces and the calls' items, in the one order they came
      const onDelta = stream
        ? (delta: TurnDelta) => {
            if (messageAt === undefined && (delta.type === 'delta' || delta.type === 'refusal')) messageAt = items.length;
            pushed.push(delta);
          }
        : undefined;
      let settled = false;
      const turn = takeAgentTurn(turnDeps, input, onDelta).finally(() => {
        settled = true;
        pushed.notify();
      });
      // a failure is thrown where it is awaited, below; this keeps it from counting as unhandled meanwhile
      turn.catch(() => {});
      try {
        for (;;) {
          const events = pushed.take();
          for (const event of events) yield event;
          if (!events.length) {
            if (settled) break;
            await pushed.arrival();
          }
        }
        const result = await turn;
        if (result.kind === 'failed') throw result.error;
        const { outcome } = result;
        // answered: the transcript is the turn's tool exchange (if any), then its answer; paused: the
        // response keeps where it stands, to go on from
        const record = recordOf(outcome, result.kind === 'answered' ? result.transcript.slice(0, -1) : []);
        if (request.store) await responses.put(record);
        // not kept: the answer waits for its tokens' record alone, as a chat completion's does
        else if (result.kind === 'answered') await result.recorded;
        return { record, outcome };
      } catch (error) {
        // what ran is on the record and is not run again: a retry may continue the pause
        await release();
        throw modelFailure(error, limit.timedOut, timeoutSeconds);
      } finally {
        limit.clear();
        await opened.close();
      }
    },
  };
}

/** the tokens of `total` spent after `before` */
const usageSince = (total: ModelUsage, before: ModelUsage): ModelUsage => ({
  prompt_tokens: total.prompt_tokens - before.prompt_tokens,
  completion_tokens: total.completion_tokens - before.completion_tokens,
  total_tokens: total.total_tokens - before.total_tokens,
});
