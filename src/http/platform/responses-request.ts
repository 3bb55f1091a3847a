import { z } from 'zod';
import type { ChatInputMessage } from '../../agents/conversation.js';
import { HeraldError } from '../../errors.js';

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

/** The body of POST /v1/responses: OpenAI's fields herald honours. */
export const responsesRequestSchema = z
  .object({
    model: z.string().min(1).describe('The agent id.'),
    input: z.union([z.string().min(1), z.array(inputMessage).min(1)]).describe('The new message as text, or a list of message items.'),
    instructions: z.string().nullish().describe('A system message for this response only (not carried to the next).'),
    previous_response_id: z.string().min(1).nullish().describe('Continue the conversation of this stored response.'),
    store: z.boolean().nullish().describe('Keep the response for GET and previous_response_id (default true).'),
    stream: z.boolean().nullish().describe('Answer as typed server-sent events (response.created ... response.completed).'),
    max_output_tokens: z.number().int().positive().nullish().describe('Longest answer in tokens.'),
    temperature: z.number().min(0).max(2).nullish().describe('Sampling temperature, passed to the model.'),
    user: z.string().max(256).nullish().describe('End-user id, passed to the model.'),
    metadata: z.record(z.string(), z.string().max(512)).nullish().describe('Up to 16 string pairs, kept with the response.'),
  })
  .loose();

export type ResponsesRequest = z.infer<typeof responsesRequestSchema>;

const paramOf = (path: PropertyKey[]) => path.reduce<string>((p, k) => (typeof k === 'number' ? `${p}[${k}]` : p ? `${p}.${String(k)}` : String(k)), '');

/** Fields that would change the answer if silently ignored are refused by name. */
function refuseUnsupported(body: Record<string, unknown>): void {
  const refuse = (param: string, why: string) => {
    throw new HeraldError('HERALD_INVALID_FIELD', `${param} is not supported: ${why}`, { param, openaiCode: 'unsupported_parameter' });
  };
  const present = (k: string) => body[k] !== undefined && body[k] !== null;
  if (present('tools') && (!Array.isArray(body.tools) || body.tools.length > 0)) refuse('tools', 'agents do not call client-side tools');
  if (present('tool_choice') && body.tool_choice !== 'none' && body.tool_choice !== 'auto') refuse('tool_choice', 'agents do not call client-side tools');
  if (present('conversation')) refuse('conversation', 'use previous_response_id');
  if (present('background') && body.background !== false) refuse('background', 'responses are answered in the request');
  const format = (body.text as { format?: { type?: unknown } } | undefined | null)?.format;
  if (format && format.type !== 'text') refuse('text.format', 'answers are plain text');
  if (Array.isArray(body.input)) {
    body.input.forEach((item: { type?: unknown; role?: unknown; content?: unknown }, i) => {
      if (item && item.type !== undefined && item.type !== 'message') refuse(`input[${i}].type`, `input items of type "${String(item.type)}"; send messages`);
      if (item && Array.isArray(item.content)) {
        item.content.forEach((part: { type?: unknown }, j) => {
          if (!['input_text', 'output_text', 'text'].includes(String(part?.type))) refuse(`input[${i}].content[${j}]`, `content parts of type "${String(part?.type)}"; send input_text`);
        });
      }
    });
  }
  if (body.metadata && typeof body.metadata === 'object' && Object.keys(body.metadata).length > 16) refuse('metadata', 'at most 16 keys');
}

export function parseResponsesRequest(body: unknown): ResponsesRequest {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new HeraldError('HERALD_INVALID_FIELD', 'the body must be a JSON object');
  refuseUnsupported(body as Record<string, unknown>);
  const parsed = responsesRequestSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const param = paramOf(issue.path);
    throw new HeraldError('HERALD_INVALID_FIELD', `${param || 'body'}: ${issue.message}`, { param: param || undefined });
  }
  return parsed.data;
}

/** the input as chat messages: a string is one user message */
export function inputMessages(input: ResponsesRequest['input']): ChatInputMessage[] {
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  return input.map((m) => ({ role: m.role, content: typeof m.content === 'string' ? m.content : m.content.map((p) => p.text).join('\n') }));
}
