import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, eventually, hookHeaders } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';
import { gate, startFakeUpstream } from '../http/v1/fake-openai-upstream.js';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

let upstream: Awaited<ReturnType<typeof startFakeUpstream>>;
/** a provider that reads the request and never answers */
let silent: FakeServer;
let herald: TestApp;
let client: OpenAI;

/** 500 one-word deltas, then a stream the model never ends */
const TOKENS = 500;
const held = () => {
  const never = gate();
  upstream.stream({ deltas: [...Array.from({ length: TOKENS }, (_, i) => ` w${i}`), ' never'], before: (i) => (i === TOKENS ? never.opened : Promise.resolve()) });
};

beforeAll(async () => {
  upstream = await startFakeUpstream();
  silent = await startFakeServer(() => 'hang');
  herald = await testApp({
    models: {
      providers: { up: { api: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'upstream-secret-key' }, silent: { api: 'openai', baseUrl: `${silent.url}/v1`, apiKey: 'silent-key-0123' } },
    },
    agents: { list: [{ id: 'analyst', model: 'up/gpt-test' }, { id: 'slow', model: 'silent/gpt-test' }] },
    hooks: { mappings: [{ id: 'ops', match: { path: 'ops' }, messageTemplate: 'Check the deploy', deliver: false, agentId: 'slow', timeoutSeconds: 1 }] },
  });
  client = new OpenAI({ baseURL: `${herald.origin}/v1`, fetch: herald.fetch, apiKey: API_KEY, maxRetries: 0 });
});
afterAll(async () => {
  await herald?.stop();
  await upstream?.close();
  await silent?.close();
});

const spentByKey = () => herald.gateway.store.usage.spent({ keyName: 'test' }, 0);
const estimatedOf = async (by: 'key' | 'mapping') => (await herald.gateway.store.usage.report({ by })).find((r) => r.group === (by === 'key' ? 'test' : 'ops'))?.estimatedTokens ?? 0;

describe('a turn cut short still counts its tokens', () => {
  it('a streamed chat completion the client drops after 500 tokens records them, estimated, against the key', async () => {
    held();
    const before = (await spentByKey()).tokens;
    const stream = await client.chat.completions.create({ model: 'analyst', stream: true, messages: [{ role: 'user', content: 'Write a long report.' }] });
    let words = 0;
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta.content) words++;
      if (words === TOKENS) break; // the client goes away: the stream is aborted
    }
    await eventually(async () => (await spentByKey()).tokens - before >= TOKENS);
    expect(await estimatedOf('key')).toBeGreaterThanOrEqual(TOKENS);
  });

  it('a stream dropped after 500 characters of English in 20 deltas counts them with OpenAI\'s tokenizer, never fewer', async () => {
    const prose = 'The deploy of the billing service finished at noon, and every health check passed since. '.repeat(6).slice(0, 500);
    const deltas = Array.from({ length: 20 }, (_, i) => prose.slice(i * 25, (i + 1) * 25));
    const never = gate();
    upstream.stream({ deltas: [...deltas, ' never'], before: (i) => (i === deltas.length ? never.opened : Promise.resolve()) });
    const completionOf = async () => (await herald.gateway.store.usage.report({ by: 'key' })).find((r) => r.group === 'test')?.completionTokens ?? 0;
    const before = await completionOf();
    const stream = await client.chat.completions.create({ model: 'analyst', stream: true, messages: [{ role: 'user', content: 'Write a status line.' }] });
    let text = '';
    let pieces = 0;
    for await (const chunk of stream) {
      const piece = chunk.choices[0]?.delta.content;
      if (piece) {
        text += piece;
        pieces++;
      }
      if (pieces === deltas.length) break; // the client goes away
    }
    expect(text).toBe(prose);
    // gpt-test is counted as OpenAI's current models are (o200k_base): ~1 token per 4 characters of English, not per word
    const real = countTokens(prose);
    expect(real).toBeGreaterThan(prose.split(/\s+/).length);
    await eventually(async () => (await completionOf()) - before >= real);
  });

  it('a streamed response the client drops records its tokens against the key', async () => {
    held();
    const before = (await spentByKey()).tokens;
    const stream = client.responses.stream({ model: 'analyst', input: 'Write a long report.' });
    let words = 0;
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') words++;
      if (words === TOKENS) break;
    }
    // the client goes away
    stream.abort();
    await eventually(async () => (await spentByKey()).tokens - before >= TOKENS);
  });

  it('a hook run past its time limit records the prompt the model read, against its mapping', async () => {
    const res = await herald.request('/hooks/ops', { method: 'POST', headers: { ...hookHeaders(), 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(202);
    const { runId } = (await res.json()) as { runId: string };
    const run = await eventually(async () => {
      const r = await herald.gateway.store.runs.get(runId);
      return r?.status !== 'queued' && r?.status !== 'running' && r;
    }, 30_000);
    expect(run).toMatchObject({ status: 'timed_out' });
    expect(silent.requests).toHaveLength(1);
    await eventually(async () => (await estimatedOf('mapping')) > 0);
  });

  it('a heartbeat past its time limit records the prompt the model read, against its agent', async () => {
    // the default agent's model never answers, and a turn may take a second
    const beat = await testApp({
      models: { providers: { silent: { api: 'openai', baseUrl: `${silent.url}/v1`, apiKey: 'silent-key-0123' } } },
      agents: { defaults: { timeoutSeconds: 1 }, list: [{ id: 'watcher', model: 'silent/gpt-test' }] },
    });
    try {
      const asked = silent.requests.length;
      const res = await beat.request('/hooks/wake', { method: 'POST', headers: { ...hookHeaders(), 'content-type': 'application/json' }, body: JSON.stringify({ text: 'disk 91% full on db-1', mode: 'now' }) });
      expect(res.status).toBe(200);
      await eventually(async () => silent.requests.length > asked, 30_000);
      const spent = await eventually(async () => (await beat.gateway.store.usage.report({ by: 'agent' })).find((r) => r.group === 'watcher' && r.estimatedTokens > 0), 30_000);
      expect(spent).toMatchObject({ requests: 1, completionTokens: 0 });
    } finally {
      await beat.stop();
    }
  });
});
