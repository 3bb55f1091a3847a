import type { ClientToolsUse } from '../../../agents/tool-use/client-tools.js';
import type { ChatInputMessage } from '../../../agents/conversation.js';
import { HeraldError } from '../../../errors.js';
import { chatRequestSchema, type ChatRequest } from './chat-request-schema.js';
import { plainChatRequest } from './plain-chat-request.js';
import { parseFields } from '../request-param.js';

/**
 * Fields that would change what the caller gets if silently ignored are refused by name;
 * harmless ones (top_p, seed, stop, ...) are accepted and passed over.
 */
function refuseUnsupported(body: Record<string, unknown>): void {
  const refuse = (param: string, why: string) => {
    throw new HeraldError('HERALD_INVALID_FIELD', `${param} is not supported: ${why}`, { param, openaiCode: 'unsupported_parameter' });
  };
  const present = (k: string) => body[k] !== undefined && body[k] !== null;
  if (Array.isArray(body.tools)) {
    body.tools.forEach((tool: { type?: unknown }, i) => {
      if (tool?.type !== 'function') refuse(`tools[${i}].type`, `tools of type "${String(tool?.type)}"; send function tools`);
    });
  }
  if (present('functions')) refuse('functions', 'send tools (function tools) instead');
  if (present('function_call') && body.function_call !== 'none') refuse('function_call', 'send tool_choice instead');
  if (present('n') && body.n !== 1) refuse('n', 'one choice per request (n must be 1)');
  if (present('audio')) refuse('audio', 'answers are text only');
  if (Array.isArray(body.modalities) && body.modalities.some((m) => m !== 'text')) refuse('modalities', 'answers are text only');
  if (body.logprobs === true) refuse('logprobs', 'log probabilities are not available');
  if (present('top_logprobs')) refuse('top_logprobs', 'log probabilities are not available');
  if (present('prediction')) refuse('prediction', 'predicted outputs are not available');
  if (Array.isArray(body.messages)) {
    body.messages.forEach((m: { role?: unknown; content?: unknown }, i) => {
      if (m && m.role === 'function') refuse(`messages[${i}].role`, 'function messages are deprecated; send tool messages');
      if (m && Array.isArray(m.content)) {
        m.content.forEach((part: { type?: unknown }, j) => {
          if (part?.type !== 'text') refuse(`messages[${i}].content[${j}]`, `content parts of type "${String(part?.type)}"; send text`);
        });
      }
    });
  }
}

export function parseChatRequest(body: unknown): ChatRequest {
  const plain = plainChatRequest(body);
  if (plain) return plain;
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new HeraldError('HERALD_INVALID_FIELD', 'the body must be a JSON object');
  refuseUnsupported(body as Record<string, unknown>);
  return parseFields(chatRequestSchema(), body);
}

/** the text of a message's content */
export const messageText = (content: ChatRequest['messages'][number]['content']) =>
  typeof content === 'string' ? content : (content ?? []).map((p) => p.text).join('\n');

/** the request's messages as the chat turn takes them */
export const chatInputMessages = (messages: ChatRequest['messages']): ChatInputMessage[] =>
  messages.map((m) => {
    // built field by field: a plain message's shape is role and content, whatever its role
    const input: ChatInputMessage = { role: m.role, content: messageText(m.content) };
    if (m.role === 'assistant' && m.tool_calls?.length) input.toolCalls = m.tool_calls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.function.name, arguments: c.function.arguments } }));
    else if (m.role === 'tool') input.toolCallId = m.tool_call_id;
    return input;
  });

/**
 * The client-tool and structured-output fields as the upstream takes them (chat completions'
 * own shape, so passed as they are), and the first of them that needs a model able to take them.
 */
export function chatClientTools(body: ChatRequest): { extra?: Record<string, unknown>; use?: ClientToolsUse } {
  const tools = body.tools?.length ? body.tools : undefined;
  const format = body.response_format && body.response_format.type !== 'text' ? body.response_format : undefined;
  const toolMessage = body.messages.findIndex((m) => m.role === 'tool' || (m.role === 'assistant' && m.tool_calls?.length));
  // a plain chat (most requests) asks for none of them: one answer, made once
  if (!tools && !format && toolMessage < 0) return NO_CLIENT_TOOLS;
  const extra: Record<string, unknown> = {};
  if (tools) {
    extra.tools = tools;
    // without tools, tool_choice and parallel_tool_calls mean nothing (and OpenAI refuses them)
    if (body.tool_choice != null) extra.tool_choice = body.tool_choice;
    if (body.parallel_tool_calls != null) extra.parallel_tool_calls = body.parallel_tool_calls;
  }
  if (format) extra.response_format = format;
  const use: ClientToolsUse = tools
    ? { param: 'tools', what: 'client tools' }
    : format
      ? { param: 'response_format', what: `structured output (response_format ${format.type})` }
      : { param: `messages[${toolMessage}]`, what: 'tool calls and tool results' };
  return Object.keys(extra).length ? { extra, use } : { use };
}

const NO_CLIENT_TOOLS = Object.freeze({});
