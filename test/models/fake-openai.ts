import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';

/**
 * an OpenAI chat completion body with `text` as the reply, with the `usage` object OpenAI
 * documents on it (https://platform.openai.com/docs/api-reference/chat/object: `usage.prompt_tokens`,
 * `completion_tokens`, `total_tokens`)
 */
export function completion(text: string, model = 'test-model') {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
  };
}

/**
 * SSE chunks of a streamed completion, ending with a usage chunk and [DONE]: with
 * `stream_options: {include_usage: true}`, "an additional chunk will be streamed before the
 * data: [DONE] message. The usage field on this chunk shows the token usage statistics for the
 * entire request, and the choices field will always be an empty array"
 * (https://platform.openai.com/docs/api-reference/chat/create#chat-create-stream_options)
 */
export function sse(pieces: string[]): string {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'test-model',
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const events = [
    chunk({ role: 'assistant', content: '' }),
    ...pieces.map((p) => chunk({ content: p })),
    chunk({}, 'stop'),
    { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'test-model', choices: [], usage: { prompt_tokens: 4, completion_tokens: pieces.length, total_tokens: 4 + pieces.length } },
  ];
  return `${events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')}data: [DONE]\n\n`;
}

/** a fake OpenAI-compatible server answering every chat completion with `reply` (or per request) */
export function startFakeOpenAI(reply: string | ((messages: { role: string; content: string }[]) => string) = 'fake reply'): Promise<FakeServer> {
  return startFakeServer((request) => {
    const messages = (request.json?.messages ?? []) as { role: string; content: string }[];
    return { body: completion(typeof reply === 'string' ? reply : reply(messages)) };
  });
}

/**
 * undici, herald's client, takes a socket back one event-loop turn after its answer ended (a
 * server that said keep-alive may close it yet): requests made one after another wait that turn
 * to reuse it
 */
export const socketBack = () => new Promise((resolve) => setImmediate(resolve));

/** the config that makes a fake OpenAI-compatible server every agent's model */
export function fakeModel(model: FakeServer) {
  return {
    models: { providers: { fake: { api: 'openai', baseUrl: `${model.url}/v1`, apiKey: 'sk-fake-0123456789' } } },
    agents: { defaults: { model: 'fake/gpt-test' } },
  };
}
