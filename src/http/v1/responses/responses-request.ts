import { z } from 'zod';
import type { ClientToolsUse } from '../../../agents/tool-use/client-tools.js';
import type { ChatInputMessage } from '../../../agents/conversation.js';
import type { ResponseRecord } from '../../../runtime/turns/responses/response-record.js';
import { HeraldError } from '../../../errors.js';
import { parseFields } from '../request-param.js';
import { functionName, jsonSchemaObject } from '../tool-schemas.js';
import { mcpApprovalResponseItem, mcpTool, withoutSecrets } from './responses-mcp-schema.js';

/** a text part of an input message: `input_text` (and `output_text` when a client replays an answer) */
const textPart = z.object({ type: z.enum(['input_text', 'output_text', 'text']), text: z.string() }).loose();

/** an input message item; `type: "message"` may be left out, as the SDKs do */
const inputMessage = z
  .object({
    type: z.literal('message').optional(),
    role: z.enum(['system', 'developer', 'user', 'assistant']).describe('Who said it; `developer` counts as `system`.'),
    content: z.union([z.string(), z.array(textPart)]).describe('Text, or input_text parts.'),
  })
  .loose();

/** a call the model made, replayed by the client (as the SDKs do when they keep the history themselves) */
const functionCallItem = z
  .object({ type: z.literal('function_call'), call_id: z.string().min(1), name: functionName, arguments: z.string() })
  .loose();

/** the client's result of a call: continues the turn */
const functionCallOutputItem = z
  .object({ type: z.literal('function_call_output'), call_id: z.string().min(1), output: z.union([z.string(), z.array(textPart)]) })
  .loose();

/** the Responses API's function tool: `{type: "function", name, description, parameters, strict}` (flat, unlike chat's) */
const functionTool = z
  .object({ type: z.literal('function'), name: functionName, description: z.string().nullish(), parameters: jsonSchemaObject.nullish(), strict: z.boolean().nullish() })
  .loose();

/**
 * OpenAI's hosted file search (https://platform.openai.com/docs/guides/tools-file-search), run by
 * herald over its vector stores: `{type: "file_search", vector_store_ids, max_num_results}`
 */
const fileSearchTool = z
  .object({
    type: z.literal('file_search'),
    vector_store_ids: z.array(z.string().min(1)).min(1).max(16).describe('The vector stores to search (an agent\'s own knowledge is vs_agent_<id>).'),
    max_num_results: z.number().int().min(1).max(50).nullish().describe('Passages given to the model, 1 to 50 (default 4).'),
    ranking_options: z.object({ ranker: z.string().optional(), score_threshold: z.number().optional() }).loose().nullish(),
  })
  .loose();

export type FileSearchTool = z.infer<typeof fileSearchTool>;


const toolChoice = z.union([z.enum(['none', 'auto', 'required']), z.object({ type: z.literal('function'), name: functionName }).loose()]);

const textFormat = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }).loose(),
  z.object({ type: z.literal('json_object') }).loose(),
  z
    .object({ type: z.literal('json_schema'), name: functionName, schema: jsonSchemaObject, description: z.string().nullish(), strict: z.boolean().nullish() })
    .loose(),
]);

/** The body of POST /v1/responses: OpenAI's fields herald honours. */
export const responsesRequestSchema = z
  .object({
    model: z.string().min(1).describe('The agent id.'),
    input: z
      .union([z.string().min(1), z.array(z.union([inputMessage, functionCallItem, functionCallOutputItem, mcpApprovalResponseItem])).min(1)])
      .describe('The new message as text, or a list of items: messages, function_call, function_call_output and mcp_approval_response.'),
    instructions: z.string().nullish().describe('A system message for this response only (not carried to the next).'),
    previous_response_id: z.string().min(1).nullish().describe('Continue the conversation of this stored response.'),
    store: z.boolean().nullish().describe('Keep the response for GET and previous_response_id (default true).'),
    stream: z.boolean().nullish().describe('Answer as typed server-sent events (response.created ... response.completed).'),
    max_output_tokens: z.number().int().positive().nullish().describe('Longest answer in tokens.'),
    temperature: z.number().min(0).max(2).nullish().describe('Sampling temperature, passed to the model.'),
    user: z.string().max(256).nullish().describe('End-user id, passed to the model.'),
    metadata: z.record(z.string(), z.string().max(512)).nullish().describe('Up to 16 string pairs, kept with the response.'),
    tools: z
      .array(z.discriminatedUnion('type', [functionTool, fileSearchTool, mcpTool]))
      .max(128)
      .nullish()
      .describe('Client function tools, passed to an OpenAI-compatible model; one file_search tool, run by herald over its vector stores; mcp tools, whose calls herald makes.'),
    include: z.array(z.string()).nullish().describe('"file_search_call.results": the passages found, in the file_search_call output item.'),
    tool_choice: toolChoice.nullish().describe('none, auto, required, or {type: "function", name}.'),
    parallel_tool_calls: z.boolean().nullish().describe('Whether the model may call several tools at once.'),
    text: z.object({ format: textFormat.optional() }).loose().nullish().describe('format: text, json_object, or json_schema (structured output).'),
  })
  .loose();

export type ResponsesRequest = z.infer<typeof responsesRequestSchema>;

const ITEM_TYPES = ['message', 'function_call', 'function_call_output', 'mcp_approval_response'];

/** Fields that would change the answer if silently ignored are refused by name. */
function refuseUnsupported(body: Record<string, unknown>): void {
  const refuse = (param: string, why: string) => {
    throw new HeraldError('HERALD_INVALID_FIELD', `${param} is not supported: ${why}`, { param, openaiCode: 'unsupported_parameter' });
  };
  const present = (k: string, object: Record<string, unknown> = body) => object[k] !== undefined && object[k] !== null;
  if (Array.isArray(body.tools)) {
    let fileSearch = false;
    body.tools.forEach((tool: { type?: unknown; filters?: unknown }, i) => {
      if (tool?.type === 'file_search') {
        if (fileSearch) refuse(`tools[${i}]`, 'a second file_search tool; list every vector store in one');
        if (tool.filters !== undefined && tool.filters !== null) refuse(`tools[${i}].filters`, 'attribute filters');
        fileSearch = true;
      } else if (tool?.type === 'mcp') {
        const mcp = tool as Record<string, unknown>;
        if (present('connector_id', mcp)) refuse(`tools[${i}].connector_id`, "OpenAI's connectors; name a configured server by server_label, or a server_url");
        if (present('tunnel_id', mcp)) refuse(`tools[${i}].tunnel_id`, 'Secure MCP Tunnel; name a configured server by server_label, or a server_url');
        if (mcp.defer_loading === true) refuse(`tools[${i}].defer_loading`, 'tool search; the tools are listed with the request');
      } else if (tool?.type !== 'function') refuse(`tools[${i}].type`, `tools of type "${String(tool?.type)}" (of the hosted tools herald runs file_search and mcp); send function tools`);
    });
  }
  if (present('conversation')) refuse('conversation', 'use previous_response_id');
  if (present('background') && body.background !== false) refuse('background', 'responses are answered in the request');
  if (Array.isArray(body.input)) {
    body.input.forEach((item: { type?: unknown; role?: unknown; content?: unknown; output?: unknown }, i) => {
      if (item && item.type !== undefined && !ITEM_TYPES.includes(String(item.type))) {
        const replay = String(item.type).startsWith('mcp_') ? ' (continue with previous_response_id: the response keeps its MCP items)' : '';
        refuse(`input[${i}].type`, `input items of type "${String(item.type)}"${replay}; send messages, function_call, function_call_output and mcp_approval_response items`);
      }
      const parts = Array.isArray(item?.content) ? item.content : Array.isArray(item?.output) ? item.output : [];
      parts.forEach((part: { type?: unknown }, j) => {
        if (!['input_text', 'output_text', 'text'].includes(String(part?.type))) {
          refuse(`input[${i}].${Array.isArray(item.content) ? 'content' : 'output'}[${j}]`, `content parts of type "${String(part?.type)}"; send input_text`);
        }
      });
    });
  }
  if (body.metadata && typeof body.metadata === 'object' && Object.keys(body.metadata).length > 16) refuse('metadata', 'at most 16 keys');
}

/** the request's file_search tool and its index in `tools`, if it has one */
export function fileSearchOf(body: ResponsesRequest): { tool: FileSearchTool; index: number } | undefined {
  const index = (body.tools ?? []).findIndex((t) => t.type === 'file_search');
  return index < 0 ? undefined : { tool: body.tools![index] as FileSearchTool, index };
}

export function parseResponsesRequest(body: unknown): ResponsesRequest {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new HeraldError('HERALD_INVALID_FIELD', 'the body must be a JSON object');
  refuseUnsupported(body as Record<string, unknown>);
  return parseFields(responsesRequestSchema, body);
}

const textOf = (content: string | { text: string }[]) => (typeof content === 'string' ? content : content.map((p) => p.text).join('\n'));

/**
 * The input as chat messages: a string is one user message; a run of `function_call` items is
 * one assistant message with those tool calls, a `function_call_output` a tool message
 * (`mcp_approval_response` items are decisions, not messages: mcpApprovals()).
 * `itemOf[i]` is the input item message i came from (for errors).
 */
export function inputMessages(input: ResponsesRequest['input']): { messages: ChatInputMessage[]; itemOf: number[] } {
  if (typeof input === 'string') return { messages: [{ role: 'user', content: input }], itemOf: [0] };
  const messages: ChatInputMessage[] = [];
  const itemOf: number[] = [];
  input.forEach((item, i) => {
    if (item.type === 'function_call') {
      const call = { id: item.call_id, type: 'function' as const, function: { name: item.name, arguments: item.arguments } };
      const last = messages.at(-1);
      const previous = input[i - 1];
      // calls join the assistant turn they belong to: the function_call or assistant message item just before
      if (last?.role === 'assistant' && previous && (previous.type === 'function_call' || (previous.type !== 'function_call_output' && previous.role === 'assistant'))) {
        last.toolCalls = [...(last.toolCalls ?? []), call];
      } else {
        messages.push({ role: 'assistant', content: '', toolCalls: [call] });
        itemOf.push(i);
      }
    } else if (item.type === 'function_call_output') {
      messages.push({ role: 'tool', content: textOf(item.output), toolCallId: item.call_id });
      itemOf.push(i);
    } else if (item.type === 'mcp_approval_response') {
      // a decision, not a message: mcpApprovals() reads them
    } else {
      messages.push({ role: item.role, content: textOf(item.content) });
      itemOf.push(i);
    }
  });
  return { messages, itemOf };
}

/**
 * The client-tool and structured-output fields in the upstream's (chat completions') shape, the
 * first of them that needs a model able to take them, and what the response object echoes.
 */
export function responsesClientTools(body: ResponsesRequest): {
  extra?: Record<string, unknown>;
  use?: ClientToolsUse;
  echo: Pick<ResponseRecord, 'tools' | 'toolChoice' | 'parallelToolCalls' | 'textFormat'>;
} {
  const functions = (body.tools ?? []).filter((t): t is Extract<typeof t, { type: 'function' }> => t.type === 'function');
  const tools = functions.length ? functions : undefined;
  const format = body.text?.format && body.text.format.type !== 'text' ? body.text.format : undefined;
  const choice = body.tool_choice;
  const extra = {
    ...(tools && {
      tools: tools.map((t) => ({
        type: 'function',
        function: { name: t.name, ...(t.description != null && { description: t.description }), ...(t.parameters != null && { parameters: t.parameters }), ...(t.strict != null && { strict: t.strict }) },
      })),
    }),
    ...(tools && choice != null && { tool_choice: typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } } }),
    ...(tools && body.parallel_tool_calls != null && { parallel_tool_calls: body.parallel_tool_calls }),
    ...(format && {
      response_format:
        format.type === 'json_schema'
          ? {
              type: 'json_schema',
              json_schema: { name: format.name, schema: format.schema, ...(format.description != null && { description: format.description }), ...(format.strict != null && { strict: format.strict }) },
            }
          : { type: 'json_object' },
    }),
  };
  const calls = Array.isArray(body.input) ? body.input.findIndex((item) => item.type === 'function_call' || item.type === 'function_call_output') : -1;
  const mcp = (body.tools ?? []).findIndex((t) => t.type === 'mcp');
  const use: ClientToolsUse | undefined = tools
    ? { param: 'tools', what: 'client tools' }
    : format
      ? { param: 'text.format', what: `structured output (text.format ${format.type})` }
      : calls >= 0
        ? { param: `input[${calls}]`, what: 'function calls and their outputs' }
        : mcp >= 0
          ? { param: `tools[${mcp}]`, what: 'MCP tools' }
          : undefined;
  const echo = {
    // an mcp tool's headers and token are the client's secrets: sent to its server, never kept or shown
    ...(body.tools?.length && { tools: body.tools.map((t) => (t.type === 'mcp' ? withoutSecrets(t) : t)) }),
    ...(choice != null && { toolChoice: choice }),
    ...(body.parallel_tool_calls != null && { parallelToolCalls: body.parallel_tool_calls }),
    ...(body.text?.format && { textFormat: body.text.format }),
  };
  return { ...(Object.keys(extra).length && { extra }), ...(use && { use }), echo };
}

