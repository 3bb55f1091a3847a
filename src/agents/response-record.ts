import type { KnowledgePassage } from '../knowledge/knowledge-passage.js';
import type { ModelToolCall, ModelUsage } from '../models/provider.js';
import type { SessionMessage, StateRepo } from '../store/port.js';

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
  /** the request's client tools and text format, echoed by the response object (absent: none, text) */
  tools?: unknown[];
  toolChoice?: unknown;
  parallelToolCalls?: boolean;
  textFormat?: unknown;
}

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
  };
}

export type ResponseStore = ReturnType<typeof responseStore>;

/**
 * The conversation a response continues: the chain of previous responses, each one's input and
 * answer, oldest first, at most `limit` messages (the newest ones). Each response keeps only its
 * own turn, so two responses continuing one predecessor branch without disturbing each other.
 */
export async function responseHistory(responses: ResponseStore, from: ResponseRecord, limit: number): Promise<SessionMessage[]> {
  const turns: SessionMessage[][] = [];
  let count = 0;
  for (let record: ResponseRecord | undefined = from; record && count < limit; ) {
    const calls = modelToolCalls(record.toolCalls);
    // a refusal is what the model said: the next response's model sees it as its answer
    const answer: SessionMessage = { role: 'assistant', content: record.output || (record.refusal ?? ''), createdAt: record.createdAt, ...(calls.length && { meta: { toolCalls: calls } }) };
    const turn = [...record.input, answer];
    turns.unshift(turn);
    count += turn.length;
    record = record.previousResponseId ? await responses.get(record.previousResponseId) : undefined;
  }
  return turns.flat().slice(-limit);
}
