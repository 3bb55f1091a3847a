import type { ResponseFileSearch, ResponseFunctionCall, ResponseRecord } from '../../../runtime/turns/responses/response-record.js';
import type { KnowledgePassage } from '../../../knowledge/knowledge-passage.js';
import { fileCitations } from '../citation-annotations.js';
import type { ModelUsage } from '../../../models/provider.js';

/** usage in the Responses API's names */
export const responseUsage = (u: ModelUsage) => ({
  input_tokens: u.prompt_tokens,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: u.completion_tokens,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: u.total_tokens,
});

/** the output message's text content part */
export const outputTextPart = (text: string, passages: KnowledgePassage[]) => ({ type: 'output_text' as const, text, annotations: fileCitations(text, passages), logprobs: [] });

/**
 * the output message's refusal content part: the model declined, and says why
 * (https://platform.openai.com/docs/api-reference/responses/object: an output message's content
 * is `output_text` or `refusal` parts, `{type: "refusal", refusal}`)
 */
export const refusalPart = (refusal: string) => ({ type: 'refusal' as const, refusal });

/** the content parts of a finished answer: its text (none when it is a refusal alone), then its refusal */
export function messageContent(text: string, passages: KnowledgePassage[], refusal?: string) {
  return [...(text || refusal === undefined ? [outputTextPart(text, passages)] : []), ...(refusal !== undefined ? [refusalPart(refusal)] : [])];
}

/** the assistant message item of a response */
export function outputMessage(itemId: string, text: string, passages: KnowledgePassage[], status: 'in_progress' | 'completed' = 'completed', refusal?: string) {
  return {
    id: itemId,
    type: 'message' as const,
    status,
    role: 'assistant' as const,
    content: status === 'in_progress' ? [] : messageContent(text, passages, refusal),
  };
}

/** a client tool call of the model as an output item */
export const functionCallItem = (call: ResponseFunctionCall, status: 'in_progress' | 'completed' = 'completed') => ({
  id: call.id,
  type: 'function_call' as const,
  status,
  call_id: call.call_id,
  name: call.name,
  arguments: call.arguments,
});

/**
 * the `file_search_call` output item (https://platform.openai.com/docs/api-reference/responses/object):
 * the queries, and the passages found only when the request's `include` asked for
 * `file_search_call.results` (null otherwise, as OpenAI's)
 */
export function fileSearchCallItem(call: ResponseFileSearch, passages: KnowledgePassage[] | undefined, status: 'in_progress' | 'searching' | 'completed' = 'completed') {
  return {
    id: call.id,
    type: 'file_search_call' as const,
    status,
    queries: call.queries,
    results:
      status === 'completed' && call.includeResults && passages
        ? passages.map((p) => ({ file_id: p.fileId ?? p.documentId, filename: p.filename, score: p.score, text: p.content, attributes: {} }))
        : null,
  };
}

/**
 * The output items of a finished response: the file search when it ran, the MCP items (tools
 * listed, calls made, approval requests) with the assistant message where it came among them,
 * then the function calls. A response of tool calls or approval requests alone has no message
 * (as OpenAI's), so no `file_citation` annotations either: they come on the answer that follows.
 */
export function outputItems(record: ResponseRecord) {
  const calls = (record.toolCalls ?? []).map((call) => functionCallItem(call));
  const hasMessage = record.output || record.refusal || (!calls.length && !record.paused);
  const message = hasMessage ? [outputMessage(record.outputItemId, record.output, record.knowledge, 'completed', record.refusal)] : [];
  const search = record.fileSearch ? [fileSearchCallItem(record.fileSearch, record.knowledge)] : [];
  const mcp = record.mcp ?? [];
  const at = record.messageAt ?? mcp.length;
  return [...search, ...mcp.slice(0, at), ...message, ...mcp.slice(at), ...calls];
}

export interface ResponseHead {
  id: string;
  createdAt: number;
  agentId: string;
  instructions: string | null;
  previousResponseId: string | null;
  maxOutputTokens: number | null;
  temperature: number | null;
  metadata: Record<string, string>;
  store: boolean;
  /** the request's client tools and text format (absent: none, plain text) */
  tools?: unknown[];
  toolChoice?: unknown;
  parallelToolCalls?: boolean;
  textFormat?: unknown;
}

/** OpenAI's response object; without a record, the in-progress one that opens a stream */
export function responseObject(head: ResponseHead, record?: ResponseRecord) {
  const incomplete = record?.finishReason === 'length';
  return {
    id: head.id,
    object: 'response' as const,
    created_at: Math.floor(head.createdAt / 1000),
    status: !record ? 'in_progress' : incomplete ? 'incomplete' : 'completed',
    error: null,
    incomplete_details: incomplete ? { reason: 'max_output_tokens' } : null,
    instructions: head.instructions,
    max_output_tokens: head.maxOutputTokens,
    model: head.agentId,
    output: record ? outputItems(record) : [],
    parallel_tool_calls: head.parallelToolCalls ?? true,
    previous_response_id: head.previousResponseId,
    reasoning: { effort: null, summary: null },
    store: head.store,
    temperature: head.temperature ?? 1,
    text: { format: head.textFormat ?? { type: 'text' } },
    tool_choice: head.toolChoice ?? 'auto',
    tools: head.tools ?? [],
    top_p: 1,
    truncation: 'disabled',
    usage: record ? responseUsage(record.usage) : null,
    user: null,
    metadata: head.metadata,
  };
}

export const headOf = (record: ResponseRecord, store = true): ResponseHead => ({ ...record, store });
