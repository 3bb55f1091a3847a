import type { KnowledgePassage } from '../../../knowledge/knowledge-passage.js';
import type { ModelToolCall, ModelUsage } from '../../../models/provider.js';
import type { SessionMessage, StateRepo } from '../../../store/port.js';
import type { ListedTool } from '../../../tools/remote/remote-mcp-server.js';
import type { TurnCheckpoint } from '../../../agents/tool-use/tool-ledger.js';

/**
 * One stored Responses API response: what GET /v1/responses/:id returns and what a later
 * `previous_response_id` continues from. It lives in the state repo under `response:<id>`, so it
 * survives a restart and is shared by every replica, on SQLite and PostgreSQL alike, with no new
 * table: a response is written once, read by id and deleted by id, which is all a key/value row does.
 */
export interface ResponseRecord {
  id: string;
  agentId: string;
  /** whose it is (the key that made it, or its group): only it reads, deletes or continues it; absent on records stored before */
  owner?: string;
  createdAt: number;
  previousResponseId: string | null;
  instructions: string | null;
  /** the messages this request added (its input items), oldest first */
  input: SessionMessage[];
  /** the answer's text */
  output: string;
  /** the model declined: its explanation, the output message's `refusal` content part */
  refusal?: string;
  outputItemId: string;
  finishReason: string;
  knowledge: KnowledgePassage[];
  usage: ModelUsage;
  metadata: Record<string, string>;
  maxOutputTokens: number | null;
  temperature: number | null;
  /** the client tools the model called, as the response's `function_call` output items */
  toolCalls?: ResponseFunctionCall[];
  /** the request's file_search tool ran: its output item's id and queries, and whether the item shows the passages (`include`) */
  fileSearch?: ResponseFileSearch;
  /**
   * the MCP output items (mcp_list_tools, mcp_call, mcp_approval_request) in the order they came;
   * the assistant message goes at `messageAt` among them (absent: after them all)
   */
  mcp?: ResponseMcpItem[];
  messageAt?: number;
  /** the server labels whose tools this conversation has listed (mcp_list_tools is not repeated) */
  mcpListed?: string[];
  /** the turn's exchange of server-side tool calls and results, before the answer: what the next response's model sees */
  exchange?: SessionMessage[];
  /** the turn waits for the client's approval (mcp_approval_request items): where it stands, to go on from */
  paused?: ResponsePause;
  /** the request's client tools and text format, echoed by the response object (absent: none, text) */
  tools?: unknown[];
  toolChoice?: unknown;
  parallelToolCalls?: boolean;
  textFormat?: unknown;
}

/** a paused turn: its checkpoint, the calls waiting (their record ids), and the response whose ledger holds the turn's calls */
export interface ResponsePause {
  checkpoint: TurnCheckpoint;
  pending: string[];
  callsOwner: string;
  /** the response that answers its approval requests: a pause is continued once */
  continuedBy?: string;
}

/**
 * The MCP output items of a response, field by field as OpenAI's (ResponseOutputItem.McpListTools,
 * McpCall and McpApprovalRequest in the official client's types;
 * https://platform.openai.com/docs/guides/tools-remote-mcp)
 */
export interface ResponseMcpListTools {
  type: 'mcp_list_tools';
  id: string;
  server_label: string;
  tools: ListedTool[];
  error: string | null;
}

export interface ResponseMcpCall {
  type: 'mcp_call';
  id: string;
  server_label: string;
  name: string;
  arguments: string;
  output: string | null;
  error: string | null;
  status: 'in_progress' | 'completed' | 'failed';
  approval_request_id: string | null;
}

export interface ResponseMcpApprovalRequest {
  type: 'mcp_approval_request';
  id: string;
  server_label: string;
  name: string;
  arguments: string;
}

export type ResponseMcpItem = ResponseMcpListTools | ResponseMcpCall | ResponseMcpApprovalRequest;

/** the `file_search_call` output item of a response: its passages are the record's `knowledge` */
export interface ResponseFileSearch {
  id: string;
  queries: string[];
  includeResults: boolean;
}

/** a `function_call` output item: `id` the item's, `call_id` the one a `function_call_output` answers */
export interface ResponseFunctionCall {
  id: string;
  call_id: string;
  name: string;
  arguments: string;
}

/** the calls of a response in the chat shape the model provider speaks */
export const modelToolCalls = (calls: ResponseFunctionCall[] = []): ModelToolCall[] =>
  calls.map((c) => ({ id: c.call_id, type: 'function', function: { name: c.name, arguments: c.arguments } }));

const key = (id: string) => `response:${id}`;

export const RESPONSE_ID = /^resp_[a-f0-9]{24}$/;

export function responseStore(state: StateRepo) {
  return {
    get: (id: string) => (RESPONSE_ID.test(id) ? state.get<ResponseRecord>(key(id)) : Promise.resolve(undefined)),
    put: (record: ResponseRecord) => state.set(key(record.id), record),
    delete: (id: string) => state.delete(key(id)),
    /** every stored response, in no order: the state repo reads a prefix, so the operator's list sorts and cuts it */
    all: async () => (await state.list<ResponseRecord>(key(''))).filter((row) => RESPONSE_ID.test(row.key.slice(key('').length))).map((row) => row.value),
    /** marks a paused response as continued by the response `by`, atomically, unless another holds it: returns who holds it */
    async claimPause(id: string, by: string): Promise<string | undefined> {
      const record = await state.update<ResponseRecord | undefined>(key(id), (current) =>
        current?.paused && current.paused.continuedBy === undefined ? { ...current, paused: { ...current.paused, continuedBy: by } } : current,
      );
      return record?.paused?.continuedBy;
    },
    /** lets a paused response go again (its continuation `by` failed), so a retry may continue it */
    async releasePause(id: string, by: string): Promise<void> {
      await state.update<ResponseRecord | undefined>(key(id), (current) => {
        if (current?.paused?.continuedBy !== by) return current;
        const { continuedBy: _, ...paused } = current.paused;
        return { ...current, paused };
      });
    },
  };
}

export type ResponseStore = ReturnType<typeof responseStore>;

/** a response's answer as a stored message: its text (or refusal) and the client tools it called */
export function responseAnswer(record: ResponseRecord): SessionMessage {
  const calls = modelToolCalls(record.toolCalls);
  // a refusal is what the model said: the next response's model sees it as its answer
  return { role: 'assistant', content: record.output || (record.refusal ?? ''), createdAt: record.createdAt, ...(calls.length && { meta: { toolCalls: calls } }) };
}

/**
 * One response's own turn, oldest first: its input, the server-side tool calls and results, then
 * its answer. A paused response has no answer yet: the response that resumes it keeps the whole exchange.
 */
export const responseTurn = (record: ResponseRecord): SessionMessage[] => [...record.input, ...(record.paused ? [] : [...(record.exchange ?? []), responseAnswer(record)])];

/**
 * The conversation a response continues: the chain of previous responses, each one's input and
 * answer, oldest first, at most `limit` messages (the newest ones). Each response keeps only its
 * own turn, so two responses continuing one predecessor branch without disturbing each other.
 */
export async function responseHistory(responses: ResponseStore, from: ResponseRecord, limit: number): Promise<SessionMessage[]> {
  const turns: SessionMessage[][] = [];
  let count = 0;
  for (let record: ResponseRecord | undefined = from; record && count < limit; ) {
    const turn = responseTurn(record);
    turns.unshift(turn);
    count += turn.length;
    record = record.previousResponseId ? await responses.get(record.previousResponseId) : undefined;
  }
  return turns.flat().slice(-limit);
}
