import OpenAI from 'openai';
import { expect } from 'vitest';
import { API_KEY } from '../../helpers/start-herald.js';
import { testApp } from '../app-fixture.js';
import { startFakeUpstream } from './fake-openai-upstream.js';

/**
 * A herald whose agent `analyst` answers through a fake OpenAI-compatible upstream that really
 * calls tools (fake-tool-model.ts), `knowledge` uploaded to it as oslo.txt, and the official client
 * on it; `support` answers with the embedded model. Made in a `beforeAll`: the file stops both.
 */
export async function startToolAgents(knowledge: string) {
  const upstream = await startFakeUpstream();
  upstream.toolModel({ argumentsFor: () => ({ city: 'Oslo' }) });
  const herald = await testApp({
    models: { providers: { up: { api: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'upstream-secret-key' } } },
    agents: { list: [{ id: 'analyst', instructions: 'You are Analyst.', model: 'up/gpt-test' }, { id: 'support' }] },
  });
  const client = new OpenAI({ baseURL: `${herald.origin}/v1`, fetch: herald.fetch, apiKey: API_KEY, maxRetries: 0 });
  const form = new FormData();
  form.append('agent_id', 'analyst');
  form.append('file', new Blob([knowledge]), 'oslo.txt');
  expect((await herald.request(`/v1/knowledge/upload`, { method: 'POST', headers: { authorization: `Bearer ${API_KEY}` }, body: form })).status).toBe(201);
  return { upstream, herald, client };
}
