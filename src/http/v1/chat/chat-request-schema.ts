import { z } from 'zod';
import { functionName, jsonSchemaObject } from '../tool-schemas.js';

/**
 * The body of POST /v1/chat/completions: OpenAI's fields herald honours, plus its two extensions.
 * Built on first use (a body the plain reader does not take, or the API docs): most bodies never
 * need it, and its ~100 zod schema objects would otherwise be built by every start.
 */
function buildChatRequestSchema() {
  const textPart = z.object({ type: z.literal('text'), text: z.string() }).loose();

  const toolCall = z
    .object({
      id: z.string().min(1),
      type: z.literal('function'),
      function: z.object({ name: functionName, arguments: z.string() }).loose(),
    })
    .loose();

  const message = z
    .object({
      role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']).describe('Who said it; `developer` counts as `system`; `tool`: a tool result.'),
      content: z.union([z.string(), z.array(textPart), z.null()]).optional().describe('Text, or text parts (null beside tool_calls).'),
      name: z.string().optional(),
      tool_calls: z.array(toolCall).optional().describe('assistant: the tool calls it made (OpenAI shape).'),
      tool_call_id: z.string().min(1).optional().describe('tool: the id of the call this result answers.'),
    })
    .loose()
    .refine((m) => m.role !== 'tool' || m.tool_call_id !== undefined, { message: 'a tool message needs tool_call_id', path: ['tool_call_id'] })
    // only an assistant message may go without content (its tool_calls are what it says)
    .refine((m) => m.role === 'assistant' || m.content !== undefined, { message: 'content is required', path: ['content'] });

  /** OpenAI's function tool: `{type: "function", function: {name, description, parameters, strict}}` */
  const functionTool = z
    .object({
      type: z.literal('function'),
      function: z
        .object({ name: functionName, description: z.string().optional(), parameters: jsonSchemaObject.optional(), strict: z.boolean().nullish() })
        .loose(),
    })
    .loose();

  const toolChoice = z.union([
    z.enum(['none', 'auto', 'required']),
    z.object({ type: z.literal('function'), function: z.object({ name: functionName }).loose() }).loose(),
  ]);

  const responseFormat = z.discriminatedUnion('type', [
    z.object({ type: z.literal('text') }).loose(),
    z.object({ type: z.literal('json_object') }).loose(),
    z
      .object({
        type: z.literal('json_schema'),
        json_schema: z.object({ name: functionName, description: z.string().optional(), schema: jsonSchemaObject.optional(), strict: z.boolean().nullish() }).loose(),
      })
      .loose(),
  ]);

  return z
    .object({
      model: z.string().min(1).describe('The agent id.'),
      messages: z.array(message).min(1).describe('The conversation; with conversation_id only the new user message or the tool results are used.'),
      stream: z.boolean().nullish().describe('Answer as server-sent chat.completion.chunk events.'),
      stream_options: z.object({ include_usage: z.boolean().optional() }).loose().nullish().describe('include_usage: a final chunk with usage.'),
      temperature: z.number().min(0).max(2).nullish().describe('Sampling temperature, passed to the model.'),
      max_tokens: z.number().int().positive().nullish().describe('Longest answer in tokens.'),
      max_completion_tokens: z.number().int().positive().nullish().describe('Same as max_tokens (the newer name wins).'),
      user: z.string().max(256).nullish().describe('End-user id, passed to the model.'),
      metadata: z.record(z.string(), z.string()).nullish().describe('Kept with the stored conversation messages.'),
      tools: z.array(functionTool).max(128).nullish().describe('Client function tools, passed to an OpenAI-compatible model.'),
      tool_choice: toolChoice.nullish().describe('none, auto, required, or {type: "function", function: {name}}.'),
      parallel_tool_calls: z.boolean().nullish().describe('Whether the model may call several tools at once.'),
      response_format: responseFormat.nullish().describe('text, json_object, or json_schema (structured output).'),
      conversation_id: z.string().min(1).nullish().describe('Extension: continue a server-side conversation.'),
      store: z
        .boolean()
        .nullish()
        .describe('false: the turn is not kept (no conversation is started or added to; only its token usage is recorded). Default true.'),
      citations: z.boolean().nullish().describe('Extension: include the knowledge chunks used (default true).'),
    })
    .loose();
}

let builtSchema: ReturnType<typeof buildChatRequestSchema> | undefined;
export const chatRequestSchema = () => (builtSchema ??= buildChatRequestSchema());

export type ChatRequest = z.infer<ReturnType<typeof buildChatRequestSchema>>;
