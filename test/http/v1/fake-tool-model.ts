/**
 * What the fake OpenAI-compatible upstream answers when a request carries client tools or a
 * structured-output format, as OpenAI documents the chat completions API:
 * - tools (https://platform.openai.com/docs/guides/function-calling, and the `tools`,
 *   `tool_choice`, `parallel_tool_calls` fields of https://platform.openai.com/docs/api-reference/chat/create):
 *   while the conversation does not end with `role: "tool"` results, the model calls tools, the
 *   message having `content: null`, `tool_calls: [{id, type: "function", function: {name, arguments}}]`
 *   and `finish_reason: "tool_calls"` (the chat completion object,
 *   https://platform.openai.com/docs/api-reference/chat/object); the tool named by `tool_choice`, else every tool at once
 *   (parallel calls) unless `parallel_tool_calls: false` (then the first), none for `"none"`. Once
 *   it sees the tool results it answers in text, quoting them.
 * - `response_format` (https://platform.openai.com/docs/guides/structured-outputs): `json_schema`
 *   answers a JSON value of the schema, `json_object` a JSON object.
 * Arguments and JSON answers are a sample of the schema unless the test supplies its own.
 */
export interface ToolModelOptions {
  /** the arguments of a call of `name`; default: a sample of its parameters schema */
  argumentsFor?: (name: string, schema: any) => unknown;
  /** the structured answer for a json_schema format; default: a sample of the schema */
  jsonFor?: (schema: any, messages: any[]) => unknown;
}

export interface ToolModelAnswer {
  content: string | null;
  toolCalls: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  finishReason: 'stop' | 'tool_calls';
}

let calls = 0;

/** the answer of the fake model, or undefined when the request asks for neither tools nor a format */
export function toolModelAnswer(body: any, options: ToolModelOptions = {}): ToolModelAnswer | undefined {
  const tools: any[] = body.tools ?? [];
  const format = body.response_format?.type && body.response_format.type !== 'text' ? body.response_format : undefined;
  if (!tools.length && !format) return undefined;
  const messages: any[] = body.messages ?? [];
  const last = messages.at(-1);
  const choice = body.tool_choice;
  if (tools.length && last?.role !== 'tool' && choice !== 'none') {
    const chosen =
      typeof choice === 'object' && choice?.function?.name
        ? tools.filter((t) => t.function.name === choice.function.name)
        : body.parallel_tool_calls === false
          ? tools.slice(0, 1)
          : tools;
    return {
      content: null,
      finishReason: 'tool_calls',
      toolCalls: chosen.map((t) => ({
        id: `call_${++calls}`,
        type: 'function',
        function: { name: t.function.name, arguments: JSON.stringify(options.argumentsFor?.(t.function.name, t.function.parameters) ?? sampleOf(t.function.parameters ?? { type: 'object' })) },
      })),
    };
  }
  const results = messages.filter((m, i) => m.role === 'tool' && i > messages.findLastIndex((u) => u.role === 'user')).map((m) => m.content);
  const text = results.length ? `The tools said: ${results.join('; ')}.` : 'No tools needed.';
  if (format?.type === 'json_schema') {
    const schema = format.json_schema?.schema ?? { type: 'object' };
    return { content: JSON.stringify(options.jsonFor?.(schema, messages) ?? sampleOf(schema)), toolCalls: [], finishReason: 'stop' };
  }
  if (format?.type === 'json_object') return { content: JSON.stringify({ answer: text }), toolCalls: [], finishReason: 'stop' };
  return { content: text, toolCalls: [], finishReason: 'stop' };
}

/** a value of a JSON Schema (the subset zod and LangChain produce: objects, arrays, scalars, enums, anyOf) */
export function sampleOf(schema: any, defs: Record<string, any> = schema?.$defs ?? schema?.definitions ?? {}): unknown {
  if (!schema || typeof schema !== 'object') return null;
  if (schema.$ref) return sampleOf(defs[String(schema.$ref).split('/').pop()!], defs);
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  const branch = schema.anyOf ?? schema.oneOf;
  if (branch) return sampleOf(branch.find((b: any) => b.type !== 'null') ?? branch[0], defs);
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  if (type === 'object' || schema.properties) {
    return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, v]) => [k, sampleOf(v, defs)]));
  }
  if (type === 'array') return [sampleOf(schema.items ?? {}, defs)];
  if (type === 'string') return 'sample';
  if (type === 'integer' || type === 'number') return 1;
  if (type === 'boolean') return true;
  return null;
}
