import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY } from '../../helpers/start-herald.js';
import { testApp, type TestApp } from '../app-fixture.js';
import { startFakeUpstream } from './fake-openai-upstream.js';

let herald: TestApp;
let upstream: Awaited<ReturnType<typeof startFakeUpstream>>;
let client: OpenAI;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  herald = await testApp({
    models: { providers: { up: { api: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'upstream-secret-key' } } },
    agents: { list: [{ id: 'analyst', instructions: 'You are Analyst.', model: 'up/gpt-test' }] },
  });
  client = new OpenAI({ baseURL: `${herald.origin}/v1`, fetch: herald.fetch, apiKey: API_KEY, maxRetries: 0 });
});
afterAll(async () => {
  await herald?.stop();
  await upstream?.close();
});

describe('the Responses API on an openai-kind agent', () => {
  it('sends instructions for one response only and the chain of previous responses as history', async () => {
    upstream.reply({ text: 'Hello Ada.' });
    const first = await client.responses.create({ model: 'analyst', instructions: 'Speak like a pirate.', input: 'My name is Ada.', max_output_tokens: 40, temperature: 0.3 });
    expect(first.output_text).toBe('Hello Ada.');
    expect(first.usage).toMatchObject({ input_tokens: 11, output_tokens: 2, total_tokens: 13 });
    let sent = upstream.requests.at(-1)!.json;
    expect(sent).toMatchObject({ model: 'gpt-test', max_tokens: 40, temperature: 0.3 });
    expect(sent.messages[0].content).toContain('You are Analyst.');
    expect(sent.messages[0].content).toContain('Speak like a pirate.');
    expect(sent.messages.at(-1)).toEqual({ role: 'user', content: 'My name is Ada.' });

    upstream.reply({ text: 'You are Ada.' });
    const second = await client.responses.create({ model: 'analyst', input: [{ role: 'user', content: [{ type: 'input_text', text: 'What is my name?' }] }], previous_response_id: first.id });
    upstream.reply({ text: 'Still Ada.' });
    await client.responses.create({ model: 'analyst', input: 'And again?', previous_response_id: second.id });
    sent = upstream.requests.at(-1)!.json;
    expect(sent.messages[0].content).not.toContain('pirate');
    expect(sent.messages.slice(1)).toEqual([
      { role: 'user', content: 'My name is Ada.' },
      { role: 'assistant', content: 'Hello Ada.' },
      { role: 'user', content: 'What is my name?' },
      { role: 'assistant', content: 'You are Ada.' },
      { role: 'user', content: 'And again?' },
    ]);
  });

  it('answers a 502 in OpenAI shape when the upstream fails', async () => {
    upstream.reply({ status: 500, text: '' });
    await expect(client.responses.create({ model: 'analyst', input: 'hi' })).rejects.toMatchObject({ status: 502, code: 'upstream_error' });
    upstream.reply({ text: 'ok' });
  });
});
