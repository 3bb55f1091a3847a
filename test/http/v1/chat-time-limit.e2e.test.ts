import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY } from '../../helpers/start-herald.js';
import { startFakeServer, type FakeServer } from '../../helpers/fake-server.js';
import { testApp, type TestApp } from '../app-fixture.js';

/** a provider that reads the request and never answers */
let silent: FakeServer;
let herald: TestApp;
let client: OpenAI;

beforeAll(async () => {
  silent = await startFakeServer(() => 'hang');
  herald = await testApp({
    models: { providers: { silent: { api: 'openai', baseUrl: `${silent.url}/v1`, apiKey: 'silent-key-0123' } } },
    agents: { defaults: { timeoutSeconds: 1 }, list: [{ id: 'slow', model: 'silent/gpt-test' }] },
  });
  client = new OpenAI({ baseURL: `${herald.origin}/v1`, fetch: herald.fetch, apiKey: API_KEY, maxRetries: 0 });
});
afterAll(async () => {
  await herald?.stop();
  await silent?.close();
});

describe('a chat completion past agents.defaults.timeoutSeconds', () => {
  it('is answered 502: the model did not answer in time', async () => {
    const failure = await client.chat.completions.create({ model: 'slow', messages: [{ role: 'user', content: 'Hello?' }] }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect(failure).toMatchObject({ status: 502, message: expect.stringContaining('did not answer within 1s') });
  });

  it('streamed, ends its stream with that error', async () => {
    const stream = await client.chat.completions.create({ model: 'slow', stream: true, messages: [{ role: 'user', content: 'Hello?' }] });
    const failure = await (async () => {
      for await (const chunk of stream) void chunk;
    })().catch((error: unknown) => error);
    expect(failure).toMatchObject({ message: expect.stringContaining('did not answer within 1s') });
  });
});
