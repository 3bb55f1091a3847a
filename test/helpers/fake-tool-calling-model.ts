import http from 'node:http';

/**
 * A fake OpenAI-compatible model that calls server-side tools as a script says, answering
 * exactly as OpenAI's chat completions API does:
 * - non-streamed (https://platform.openai.com/docs/api-reference/chat/object): `choices[0].message`
 *   with `content: null` and `tool_calls: [{ id, type: "function", function: { name, arguments } }]`
 *   (arguments a JSON string) and `finish_reason: "tool_calls"`, or `content` and `"stop"`; `usage`.
 * - streamed (https://platform.openai.com/docs/api-reference/chat-streaming): `chat.completion.chunk`
 *   objects as SSE `data:` lines; the first piece of tool call `index` carries `id`, `type` and
 *   `function.name`, later pieces `function.arguments`; then a chunk with `finish_reason`, a usage
 *   chunk (`stream_options.include_usage`) and `data: [DONE]`.
 * The script sees each request's body and says what the model does: call tools, or answer.
 * A request OpenAI refuses is refused as OpenAI does (400, `invalid_request_error`), so a test
 * sees what a real provider would make of it: an assistant message's `tool_calls` each answered
 * by a `tool` message after it, and `tool_choice` only beside `tools`.
 */
export interface ModelStep {
  calls?: { name: string; arguments: unknown }[];
  text?: string;
}

/** what the model does for a request; a promise holds the answer back until it settles (a model still thinking) */
export type ModelScript = (body: any, request: number) => ModelStep | Promise<ModelStep>;

export interface ToolCallingModel {
  url: string;
  /** every chat request's body, in order */
  requests: any[];
  script(next: ModelScript): void;
  close(): Promise<void>;
}

let ids = 0;

/** answers with the tool results it was given, quoted: what most tests expect of the model's last turn */
export const quoteResults: ModelScript = (body) => {
  const messages: any[] = body.messages;
  const lastUser = messages.findLastIndex((m) => m.role === 'user');
  const results = messages.slice(lastUser + 1).filter((m) => m.role === 'tool').map((m) => m.content);
  return { text: results.length ? `Done: ${results.join(' | ')}` : 'No tools needed.' };
};

/** calls the tools in `plan` one round after another (a round is a list of calls), then quotes the results */
export function callInRounds(plan: { name: string; arguments: unknown }[][]): ModelScript {
  return (body) => {
    const messages: any[] = body.messages;
    const lastUser = messages.findLastIndex((m) => m.role === 'user');
    const rounds = messages.slice(lastUser + 1).filter((m) => m.role === 'assistant' && m.tool_calls?.length).length;
    return rounds < plan.length ? { calls: plan[rounds] } : quoteResults(body, 0);
  };
}

export async function startToolCallingModel(initial: ModelScript = quoteResults): Promise<ToolCallingModel> {
  let current = initial;
  const requests: any[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    requests.push(body);
    const refusal = invalidRequest(body);
    if (refusal) {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { ...refusal, type: 'invalid_request_error', code: null } }));
      return;
    }
    const step = await current(body, requests.length - 1);
    const toolCalls = (step.calls ?? []).map((c) => ({ id: `call_${++ids}`, type: 'function' as const, function: { name: c.name, arguments: JSON.stringify(c.arguments) } }));
    const finish = toolCalls.length ? 'tool_calls' : 'stop';
    const usage = { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 };
    const base = { id: `chatcmpl-${ids}`, created: Math.floor(Date.now() / 1000), model: body.model };
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          ...base,
          object: 'chat.completion',
          choices: [{ index: 0, message: { role: 'assistant', content: step.text ?? (toolCalls.length ? null : ''), refusal: null, ...(toolCalls.length && { tool_calls: toolCalls }) }, finish_reason: finish, logprobs: null }],
          usage,
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const send = (chunk: unknown) => res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', ...(chunk as object) })}\n\n`);
    send({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
    if (step.text) for (const word of step.text.split(/(?<= )/)) send({ choices: [{ index: 0, delta: { content: word }, finish_reason: null }] });
    toolCalls.forEach((call, index) => {
      send({ choices: [{ index: 0, delta: { tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }, finish_reason: null }] });
      send({ choices: [{ index: 0, delta: { tool_calls: [{ index, function: { arguments: call.function.arguments } }] }, finish_reason: null }] });
    });
    send({ choices: [{ index: 0, delta: {}, finish_reason: finish }] });
    if (body.stream_options?.include_usage) send({ choices: [], usage });
    res.end('data: [DONE]\n\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    script: (next) => (current = next),
    close: () => {
      // a request held back by its script is not waited for
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * What OpenAI's chat completions refuse, with its words (as its API answers them): an assistant
 * message with `tool_calls` not followed by a `tool` message for each call, and `tool_choice`
 * without `tools`.
 */
function invalidRequest(body: any): { message: string; param: string } | undefined {
  if (body.tool_choice !== undefined && !body.tools?.length) {
    return { message: "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.", param: 'tool_choice' };
  }
  const messages: any[] = body.messages ?? [];
  for (let i = 0; i < messages.length; i++) {
    const calls: any[] = messages[i].role === 'assistant' ? (messages[i].tool_calls ?? []) : [];
    if (!calls.length) continue;
    const answered = new Set<string>();
    for (let j = i + 1; j < messages.length && messages[j].role === 'tool'; j++) answered.add(messages[j].tool_call_id);
    const missing = calls.map((c) => c.id).filter((id) => !answered.has(id));
    if (missing.length) {
      return {
        message: `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${missing.join(', ')}`,
        param: `messages.[${i + 1}].role`,
      };
    }
  }
  return undefined;
}
