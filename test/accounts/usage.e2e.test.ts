import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMBEDDINGS_KEY, startFakeEmbeddings } from '../helpers/fake-embeddings.js';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { API_KEY, eventually, GATEWAY_TOKEN, hookHeaders } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';
import { completion, sse } from '../models/fake-openai.js';

let chat: FakeServer;
let embeddings: FakeServer;
let herald: TestApp;
beforeAll(async () => {
  // answers as OpenAI documents, with `usage` (see fake-openai.ts): 3 + 2 tokens plain, 4 + pieces streamed
  chat = await startFakeServer((req) => (req.json?.stream ? { headers: { 'content-type': 'text/event-stream' }, body: sse(['Hel', 'lo']) } : { body: completion('Hello') }));
  embeddings = await startFakeEmbeddings('text-embedding-3-small');
});
afterAll(async () => {
  await chat?.close();
  await embeddings?.close();
});

const usageConfig = (overrides: Record<string, unknown> = {}) => ({
    models: {
      providers: { fake: { api: 'openai', baseUrl: `${chat.url}/v1` }, emb: { api: 'openai', baseUrl: `${embeddings.url}/v1`, apiKey: EMBEDDINGS_KEY } },
      prices: { 'fake/gpt-4o-mini': { input: 150000, output: 600000 } },
    },
    agents: { list: [{ id: 'sales', model: 'fake/gpt-4o-mini' }, { id: 'support' }] },
    hooks: { mappings: [{ id: 'github', match: { path: 'github' }, agentId: 'sales', messageTemplate: 'issue {{title}}' }] },
    platform: { embeddings: { models: ['emb/text-embedding-3-small'] } },
    ...overrides,
});

const admin = async (path: string): Promise<any> => {
  const res = await herald.request(path, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
  expect(res.status, path).toBe(200);
  return res.json();
};

describe('usage', () => {
  it('records every chat completion, response, hook run and embedding under its key, agent, mapping and model; reported by GET /admin/usage, kept after a restart', async () => {
    herald = await testApp(usageConfig());
    const client = new OpenAI({ baseURL: `${herald.origin}/v1`, apiKey: API_KEY, maxRetries: 0, fetch: herald.fetch });
    const answer = await client.chat.completions.create({ model: 'sales', messages: [{ role: 'user', content: 'hi' }] });
    expect(answer.usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 });
    const stream = await client.chat.completions.create({ model: 'sales', messages: [{ role: 'user', content: 'hi' }], stream: true });
    for await (const _ of stream) void _;
    await client.responses.create({ model: 'sales', input: 'hi' });
    // the embedded model counts words: recorded as an estimate
    const embedded = await client.chat.completions.create({ model: 'support', messages: [{ role: 'user', content: 'what is the refund policy' }] });
    await client.embeddings.create({ model: 'text-embedding-3-small', input: ['a sofa', 'a couch'] });
    const hook = await herald.request(`/hooks/github`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ title: 'bug' }) });
    const { runId } = (await hook.json()) as { runId: string };
    await eventually(async () => (await admin(`/admin/runs/${runId}`)).status === 'succeeded');
    // the run's summary wakes the heartbeat (wakeMode now): a turn of the default agent (sales), counted too

    const byKey = await eventually(async () => {
      const report = await admin('/admin/usage?by=key');
      return report.data.reduce((n: number, r: { requests: number }) => n + r.requests, 0) === 7 && report;
    });
    const embeddedTokens = embedded.usage!.total_tokens;
    expect(byKey).toMatchObject({ by: 'key', interval: null, since: null, until: null });
    expect(byKey.data).toEqual([
      // 5 (chat) + 6 (streamed: 4 + 2 pieces) + 5 (response) + the embedded answer + 4 (two embeddings of two words);
      // cost at 0.15 and 0.6 per token of fake/gpt-4o-mini (prices per million: 150000 and 600000), embeddings unpriced
      { group: 'test', requests: 5, promptTokens: 3 + 4 + 3 + embedded.usage!.prompt_tokens + 4, completionTokens: 2 + 2 + 2 + embedded.usage!.completion_tokens, totalTokens: 20 + embeddedTokens, estimatedTokens: embeddedTokens, cost: expect.closeTo(1.65 + 1.8 + 1.65, 6) },
      { group: null, requests: 2, promptTokens: 6, completionTokens: 4, totalTokens: 10, estimatedTokens: 0, cost: expect.closeTo(2 * 1.65, 6) },
    ]);
    const byMapping = await admin('/admin/usage?by=mapping');
    expect(byMapping.data.map((r: { group: string | null; requests: number }) => [r.group, r.requests])).toEqual([[null, 6], ['github', 1]]);
    const byModel = await admin('/admin/usage?by=model');
    expect(byModel.data.map((r: { group: string; requests: number; estimatedTokens: number }) => [r.group, r.requests, r.estimatedTokens > 0])).toEqual(
      expect.arrayContaining([['fake/gpt-4o-mini', 5, false], ['embedded/extractive', 1, true], ['emb/text-embedding-3-small', 1, false]]),
    );
    const today = new Date().toISOString().slice(0, 10);
    const byAgentPerDay = await admin(`/admin/usage?by=agent&interval=day&since=${today}T00:00:00Z`);
    expect(byAgentPerDay.data.map((r: { day: string; group: string | null; requests: number }) => [r.day, r.group, r.requests])).toEqual([
      [today, 'sales', 5],
      [today, 'support', 1],
      [today, null, 1],
    ]);
    expect((await admin('/admin/usage?by=agent&until=2000-01-01T00:00:00Z')).data).toEqual([]);

    // the tokens are in /metrics too
    const metrics = await (await herald.request(`/metrics`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).text();
    expect(metrics).toMatch(/herald_tokens_total\{agent="sales",model="fake\/gpt-4o-mini",source="run",estimated="false",kind="prompt"\} 3/);
    expect(metrics).toMatch(/herald_tokens_total\{agent="support",model="embedded\/extractive",source="chat",estimated="true",kind="completion"\} \d+/);

    herald = await herald.restart();
    expect((await admin('/admin/usage?by=key')).data).toEqual(byKey.data);
  });

  it('refuses a bad report query naming the parameter', async () => {
    herald = await testApp(usageConfig());
    for (const [query, param] of [['by=team', 'by'], ['by=key&since=yesterday', 'since'], ['by=key&interval=week', 'interval'], ['', 'by'], ['by=key&agent=x', 'agent']] as const) {
      const res = await herald.request(`/admin/usage?${query}`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
      expect(res.status, query).toBe(400);
      expect(((await res.json()) as { error: string }).error, query).toContain(param);
    }
  });
});
