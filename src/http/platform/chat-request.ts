import { z } from 'zod';
import { HeraldError } from '../../errors.js';

const textPart = z.object({ type: z.literal('text'), text: z.string() }).loose();

const message = z
  .object({
    role: z.enum(['system', 'developer', 'user', 'assistant']).describe('Who said it; `developer` counts as `system`.'),
    content: z.union([z.string(), z.array(textPart), z.null()]).describe('Text, or text parts.'),
    name: z.string().optional(),
  })
  .loose();

/** The body of POST /v1/chat/completions: OpenAI's fields herald honours, plus its two extensions. */
export const chatRequestSchema = z
  .object({
    model: z.string().min(1).describe('The agent id.'),
    messages: z.array(message).min(1).describe('The conversation; with conversation_id only the last user message is used.'),
    stream: z.boolean().nullish().describe('Answer as server-sent chat.completion.chunk events.'),
    stream_options: z.object({ include_usage: z.boolean().optional() }).loose().nullish().describe('include_usage: a final chunk with usage.'),
    temperature: z.number().min(0).max(2).nullish().describe('Sampling temperature, passed to the model.'),
    max_tokens: z.number().int().positive().nullish().describe('Longest answer in tokens.'),
    max_completion_tokens: z.number().int().positive().nullish().describe('Same as max_tokens (the newer name wins).'),
    user: z.string().max(256).nullish().describe('End-user id, passed to the model.'),
    metadata: z.record(z.string(), z.string()).nullish().describe('Kept with the stored conversation messages.'),
    conversation_id: z.string().min(1).nullish().describe('Extension: continue a server-side conversation.'),
    citations: z.boolean().nullish().describe('Extension: include the knowledge chunks used (default true).'),
  })
  .loose();

export type ChatRequest = z.infer<typeof chatRequestSchema>;

/** `messages.0.content` -> `messages[0].content`, OpenAI's way of naming a param */
const paramOf = (path: PropertyKey[]) => path.reduce<string>((p, k) => (typeof k === 'number' ? `${p}[${k}]` : p ? `${p}.${String(k)}` : String(k)), '');

/**
 * Fields that would change what the caller gets if silently ignored are refused by name;
 * harmless ones (top_p, seed, stop, store, ...) are accepted and passed over.
 */
function refuseUnsupported(body: Record<string, unknown>): void {
  const refuse = (param: string, why: string) => {
    throw new HeraldError('HERALD_INVALID_FIELD', `${param} is not supported: ${why}`, { param, openaiCode: 'unsupported_parameter' });
  };
  const present = (k: string) => body[k] !== undefined && body[k] !== null;
  if (present('tools') && (!Array.isArray(body.tools) || body.tools.length > 0)) refuse('tools', 'agents do not call client-side tools');
  if (present('tool_choice') && body.tool_choice !== 'none') refuse('tool_choice', 'agents do not call client-side tools');
  if (present('functions')) refuse('functions', 'agents do not call client-side functions');
  if (present('function_call') && body.function_call !== 'none') refuse('function_call', 'agents do not call client-side functions');
  if (present('n') && body.n !== 1) refuse('n', 'one choice per request (n must be 1)');
  const format = body.response_format as { type?: unknown } | undefined | null;
  if (format && format.type !== 'text') refuse('response_format', 'answers are plain text');
  if (present('audio')) refuse('audio', 'answers are text only');
  if (Array.isArray(body.modalities) && body.modalities.some((m) => m !== 'text')) refuse('modalities', 'answers are text only');
  if (body.logprobs === true) refuse('logprobs', 'log probabilities are not available');
  if (present('top_logprobs')) refuse('top_logprobs', 'log probabilities are not available');
  if (present('prediction')) refuse('prediction', 'predicted outputs are not available');
  if (Array.isArray(body.messages)) {
    body.messages.forEach((m: { role?: unknown; content?: unknown }, i) => {
      if (m && (m.role === 'tool' || m.role === 'function')) refuse(`messages[${i}].role`, 'tool messages need tools');
      if (m && Array.isArray(m.content)) {
        m.content.forEach((part: { type?: unknown }, j) => {
          if (part?.type !== 'text') refuse(`messages[${i}].content[${j}]`, `content parts of type "${String(part?.type)}"; send text`);
        });
      }
    });
  }
}

export function parseChatRequest(body: unknown): ChatRequest {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new HeraldError('HERALD_INVALID_FIELD', 'the body must be a JSON object');
  refuseUnsupported(body as Record<string, unknown>);
  const parsed = chatRequestSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const param = paramOf(issue.path);
    throw new HeraldError('HERALD_INVALID_FIELD', `${param || 'body'}: ${issue.message}`, { param: param || undefined });
  }
  return parsed.data;
}

/** the text of a message's content */
export const messageText = (content: ChatRequest['messages'][number]['content']) =>
  typeof content === 'string' ? content : (content ?? []).map((p) => p.text).join('\n');
