import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY } from '../../helpers/start-herald.js';
import { testApp, type TestApp } from '../app-fixture.js';
import { REFUSAL, REFUSAL_PIECES, startRefusingUpstream } from './fake-refusing-upstream.js';

let herald: TestApp;
let upstream: Awaited<ReturnType<typeof startRefusingUpstream>>;
let client: OpenAI;

beforeAll(async () => {
  upstream = await startRefusingUpstream();
  herald = await testApp({
    models: { providers: { up: { api: 'openai', baseUrl: `${upstream.url}/v1` } } },
    agents: { list: [{ id: 'clerk', instructions: 'You are Clerk.', model: 'up/gpt-test' }] },
  });
  client = new OpenAI({ baseURL: `${herald.origin}/v1`, fetch: herald.fetch, apiKey: API_KEY, maxRetries: 0 });
});
afterAll(async () => {
  await herald?.stop();
  await upstream?.close();
});

describe('a model that refuses, through chat completions', () => {
  it('passes message.refusal through unchanged, with no content', async () => {
    const completion = await client.chat.completions.create({ model: 'clerk', messages: [{ role: 'user', content: 'Something forbidden' }] });
    expect(completion.choices[0]!.message).toMatchObject({ role: 'assistant', content: null, refusal: REFUSAL });
    expect(completion.choices[0]!.finish_reason).toBe('stop');
  });

  it('streams delta.refusal pieces as they come, and the client assembles the refusal', async () => {
    const stream = await client.chat.completions.create({ model: 'clerk', messages: [{ role: 'user', content: 'Something forbidden' }], stream: true });
    const pieces: string[] = [];
    let content = '';
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta;
      if (delta?.refusal) pieces.push(delta.refusal);
      if (delta?.content) content += delta.content;
    }
    expect(pieces).toEqual(REFUSAL_PIECES);
    expect(content).toBe('');

    const helper = client.chat.completions.stream({ model: 'clerk', messages: [{ role: 'user', content: 'Something forbidden' }] });
    const done = new Promise<string>((resolve) => helper.on('refusal.done', ({ refusal }) => resolve(refusal)));
    const final = await helper.finalChatCompletion();
    expect(await done).toBe(REFUSAL);
    expect(final.choices[0]!.message).toMatchObject({ content: null, refusal: REFUSAL });
  });

  it('keeps the refusal in the conversation, so the next turn sees what the model said', async () => {
    const first = (await client.chat.completions.create({ model: 'clerk', messages: [{ role: 'user', content: 'Something forbidden' }] })) as unknown as { conversation_id: string };
    await client.chat.completions.create({ model: 'clerk', messages: [{ role: 'user', content: 'Why not?' }], conversation_id: first.conversation_id } as never);
    expect(upstream.requests.at(-1)!.messages.slice(-2)).toEqual([
      { role: 'assistant', content: REFUSAL },
      { role: 'user', content: 'Why not?' },
    ]);
  });
});

describe('a model that refuses, through the Responses API', () => {
  it('answers with a refusal content part in the output message', async () => {
    const response = await client.responses.create({ model: 'clerk', input: 'Something forbidden' });
    expect(response.status).toBe('completed');
    expect(response.output).toEqual([expect.objectContaining({ type: 'message', role: 'assistant', content: [{ type: 'refusal', refusal: REFUSAL }] })]);
    expect(response.output_text).toBe('');
    // stored as answered: GET gives the same output
    expect((await client.responses.retrieve(response.id)).output).toEqual(response.output);
  });

  it('streams response.refusal.delta and response.refusal.done events, and the client assembles the part', async () => {
    const stream = client.responses.stream({ model: 'clerk', input: 'Something forbidden' });
    const types: string[] = [];
    const deltas: string[] = [];
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.refusal.delta') deltas.push(event.delta);
      if (event.type === 'response.refusal.done') expect(event).toMatchObject({ output_index: 0, content_index: 0, refusal: REFUSAL });
    }
    expect(deltas).toEqual(REFUSAL_PIECES);
    expect(types.filter((t) => !t.startsWith('response.refusal.delta'))).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.refusal.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const final = await stream.finalResponse();
    expect(final.output[0]).toMatchObject({ type: 'message', content: [{ type: 'refusal', refusal: REFUSAL }] });
  });
});
