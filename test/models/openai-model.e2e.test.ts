import { afterEach, describe, expect, it } from 'vitest';
import { OpenAIModel } from '../../src/models/providers/openai-model.js';
import type { ModelRequest } from '../../src/models/provider.js';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { completion, sse } from './fake-openai.js';

let fake: FakeServer | undefined;
afterEach(async () => fake?.close());

const request = (extra: Partial<ModelRequest> = {}): ModelRequest => ({
  model: 'llama3',
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Hi' },
  ],
  purpose: 'run',
  ...extra,
});

describe('openai-kind provider against a fake OpenAI-compatible server', () => {
  it('sends the chat completion over real HTTP and returns the reply and usage', async () => {
    fake = await startFakeServer(() => ({ body: completion('Hello back') }));
    const model = new OpenAIModel({ baseUrl: `${fake.url}/v1`, apiKey: 'sk-upstream-123' });
    const response = await model.complete(request({ temperature: 0.2, maxTokens: 50 }));
    expect(response).toMatchObject({ text: 'Hello back', finishReason: 'stop', usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } });
    expect(fake.requests).toHaveLength(1);
    const sent = fake.requests[0]!;
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe('Bearer sk-upstream-123');
    expect(sent.json).toMatchObject({ model: 'llama3', messages: request().messages, temperature: 0.2, max_tokens: 50 });
    expect(sent.json.stream).toBeFalsy();
    expect(sent.json).not.toHaveProperty('reasoning_effort');
  });

  it('maps thinking to reasoning_effort, and sends none for "off"', async () => {
    fake = await startFakeServer(() => ({ body: completion('ok') }));
    const model = new OpenAIModel({ baseUrl: `${fake.url}/v1` });
    for (const level of ['minimal', 'low', 'medium', 'high'] as const) await model.complete(request({ thinking: level }));
    await model.complete(request({ thinking: 'off' }));
    expect(fake.requests.map((r) => r.json.reasoning_effort)).toEqual(['minimal', 'low', 'medium', 'high', undefined]);
  });

  it('streams SSE deltas and the usage chunk', async () => {
    fake = await startFakeServer(() => ({ headers: { 'content-type': 'text/event-stream' }, body: sse(['Hel', 'lo', ' world']) }));
    const model = new OpenAIModel({ baseUrl: `${fake.url}/v1` });
    const events = [];
    for await (const event of model.stream(request({ thinking: 'high' }))) events.push(event);
    expect(events.filter((e) => e.type === 'delta').map((e) => (e as { text: string }).text).join('')).toBe('Hello world');
    expect(events.at(-1)).toEqual({ type: 'usage', usage: { prompt_tokens: 4, completion_tokens: 3, total_tokens: 7 } });
    expect(fake.requests[0]!.json).toMatchObject({ stream: true, stream_options: { include_usage: true }, reasoning_effort: 'high' });
  });

  it('gives up when the signal aborts a call the server never answers', async () => {
    fake = await startFakeServer(() => 'hang');
    const model = new OpenAIModel({ baseUrl: `${fake.url}/v1` });
    await expect(model.complete(request({ signal: AbortSignal.timeout(200) }))).rejects.toThrow();
    expect(fake.requests).toHaveLength(1);
  });

  it('surfaces an upstream error status as a failure (no hidden retries)', async () => {
    fake = await startFakeServer(() => ({ status: 500, body: { error: { message: 'boom' } } }));
    const model = new OpenAIModel({ baseUrl: `${fake.url}/v1` });
    await expect(model.complete(request())).rejects.toThrow(/500/);
    expect(fake.requests).toHaveLength(1);
  });
});
