import http from 'node:http';
import { toolModelAnswer, type ToolModelOptions } from './fake-tool-model.js';

export interface UpstreamRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  json: any;
}

/** what the fake does for one streamed request: the deltas to send, each after its gate opens */
export interface StreamScript {
  deltas: string[];
  /** awaited before sending delta i (lets a test hold the stream at a known point) */
  before?: (i: number) => Promise<void>;
  /** destroys the connection after this many deltas */
  breakAfter?: number;
  /** the finish_reason of the last chunk (default stop) */
  finish?: string;
}

/**
 * A fake OpenAI-compatible server on 127.0.0.1: records every chat request, answers plain
 * requests with `reply` and streamed ones from a script, as real SSE chunks. A request with
 * client tools or a structured-output format is answered by the fake tool-calling model
 * (`fake-tool-model.ts`), plain or streamed as OpenAI streams tool calls
 * (https://platform.openai.com/docs/api-reference/chat-streaming: the first piece of call `index`
 * carries `id`, `type` and `function.name`, later pieces `function.arguments`).
 */
export async function startFakeUpstream() {
  const requests: UpstreamRequest[] = [];
  let reply: { status?: number; text: string } = { text: 'upstream answer' };
  let script: StreamScript = { deltas: ['Hello', ' from', ' upstream'] };
  let toolModel: ToolModelOptions = {};
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const json = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    requests.push({ path: req.url ?? '/', headers: req.headers, json });
    const tooled = toolModelAnswer(json, toolModel);
    if (tooled) {
      answerTooled(res, json, tooled);
      return;
    }
    if (!json.stream) {
      if (reply.status && reply.status >= 400) {
        res.writeHead(reply.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'upstream exploded', type: 'server_error', code: null, param: null } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'chatcmpl-up',
          object: 'chat.completion',
          created: 1,
          model: json.model,
          choices: [{ index: 0, message: { role: 'assistant', content: reply.text }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 11, completion_tokens: 2, total_tokens: 13 },
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const frame = (delta: Record<string, unknown>, finish: string | null = null, usage?: unknown) =>
      `data: ${JSON.stringify({ id: 'chatcmpl-up', object: 'chat.completion.chunk', created: 1, model: json.model, choices: usage ? [] : [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) })}\n\n`;
    res.write(frame({ role: 'assistant', content: '' }));
    const current = script;
    for (const [i, delta] of current.deltas.entries()) {
      if (current.breakAfter !== undefined && i >= current.breakAfter) {
        res.socket?.destroy();
        return;
      }
      await current.before?.(i);
      // flushed before a scripted break, so the client has really seen it
      await new Promise<void>((resolve) => res.write(frame({ content: delta }), () => resolve()));
    }
    res.write(frame({}, current.finish ?? 'stop'));
    res.write(frame({}, null, { prompt_tokens: 7, completion_tokens: current.deltas.length, total_tokens: 7 + current.deltas.length }));
    res.end('data: [DONE]\n\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    reply(next: { status?: number; text: string }) {
      reply = next;
    },
    stream(next: StreamScript) {
      script = next;
    },
    /** how the fake tool-calling model picks arguments and JSON answers */
    toolModel(next: ToolModelOptions) {
      toolModel = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** the fake tool-calling model's answer as a chat completion, or streamed in chunks */
function answerTooled(res: http.ServerResponse, json: any, answer: NonNullable<ReturnType<typeof toolModelAnswer>>) {
  const usage = { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 };
  const base = { id: 'chatcmpl-tools', created: 1, model: json.model };
  if (!json.stream) {
    const message = { role: 'assistant', content: answer.content, refusal: null, ...(answer.toolCalls.length && { tool_calls: answer.toolCalls }) };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ...base, object: 'chat.completion', choices: [{ index: 0, message, logprobs: null, finish_reason: answer.finishReason }], usage }));
    return;
  }
  const frame = (delta: Record<string, unknown>, finish: string | null = null) =>
    `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write(frame({ role: 'assistant', content: answer.toolCalls.length ? null : '' }));
  // content and arguments in two pieces each, so a client has to put them together
  const halves = (s: string) => [s.slice(0, Math.ceil(s.length / 2)), s.slice(Math.ceil(s.length / 2))].filter(Boolean);
  if (answer.content) for (const piece of halves(answer.content)) res.write(frame({ content: piece }));
  answer.toolCalls.forEach((call, index) => {
    res.write(frame({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }));
    for (const piece of halves(call.function.arguments)) res.write(frame({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  res.write(frame({}, answer.finishReason));
  if (json.stream_options?.include_usage) res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [], usage })}\n\n`);
  res.end('data: [DONE]\n\n');
}

/** a gate a test opens by hand */
export function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}
