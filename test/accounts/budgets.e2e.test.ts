import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { dropSchema, PG_URL, uniqueSchema } from '../helpers/postgres.js';
import { API_KEY, eventually, GATEWAY_TOKEN, hookHeaders } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';
import { completion } from '../models/fake-openai.js';

let model: FakeServer;

beforeAll(async () => {
  // every answer spends 3 + 2 tokens, as its documented `usage` says (fake-openai.ts)
  model = await startFakeServer(() => ({ body: completion('Hello') }));
});
afterAll(() => model?.close());
afterEach(() => {
  model.requests.length = 0;
});

const OTHER_KEY = 'sk-other-0123456789abcdef0123';
const config = (overrides: { key?: object; agent?: object; storage?: object } = {}) => ({
    models: { providers: { fake: { api: 'openai', baseUrl: `${model.url}/v1` } }, prices: { 'fake/gpt-4o-mini': { input: 100_000, output: 100_000 } } },
    agents: { list: [{ id: 'sales', model: 'fake/gpt-4o-mini', ...(overrides.agent && { budget: overrides.agent }) }] },
    hooks: { mappings: [{ id: 'github', match: { path: 'github' }, messageTemplate: 'issue {{title}}', wakeMode: 'next-heartbeat' }] },
    platform: { apiKeys: [{ name: 'test', key: API_KEY, ...(overrides.key && { budget: overrides.key }) }, { name: 'other', key: OTHER_KEY }] },
    ...(overrides.storage && { storage: overrides.storage }),
});

// made inside a test: stopped when it ends (test/http/app-fixture.ts)
const start = (c: Record<string, unknown>) => testApp(c);
const clientOf = (herald: TestApp, apiKey = API_KEY) => new OpenAI({ baseURL: `${herald.origin}/v1`, apiKey, maxRetries: 2, fetch: herald.fetch });
const ask = (client: OpenAI) => client.chat.completions.create({ model: 'sales', messages: [{ role: 'user', content: 'hi' }] });
const tomorrow = () => new Date(Math.floor(Date.now() / 86_400_000 + 1) * 86_400_000).toISOString();
const nextMonth = () => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
};

describe('budgets', () => {
  it("refuses a key past its tokensPerDay with 429 insufficient_quota naming the budget and its reset; the official client does not retry", async () => {
    const herald = await start(config({ key: { tokensPerDay: 6 } }));
    const client = clientOf(herald);
    await ask(client);
    await ask(client);
    const refused = await ask(client).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    expect(refused).toMatchObject({
      status: 429,
      code: 'insufficient_quota',
      error: { message: `Budget exceeded: API key "test" has used 10 of its 6 tokens per day (platform.apiKeys[name=test].budget.tokensPerDay); it resets at ${tomorrow()}.` },
    });
    // two answered, the refusal never reached the model and was not retried (x-should-retry: false)
    expect(model.requests).toHaveLength(2);
    // another key is not held back by this one's budget
    expect((await ask(clientOf(herald, OTHER_KEY))).choices[0]!.message.content).toBe('Hello');
    const metrics = await (await herald.request(`/metrics`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).text();
    expect(metrics).toMatch(/herald_budget_refusals_total\{budget="key"\} 1\b/);
  });

  it('holds an agent to its budget for every key and fails its hook runs at once with the reason recorded', async () => {
    const herald = await start(config({ agent: { tokensPerDay: 5 } }));
    await ask(clientOf(herald));
    const refused = await ask(clientOf(herald, OTHER_KEY)).catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 429, error: { message: `Budget exceeded: agent "sales" has used 5 of its 5 tokens per day (agents.list[id=sales].budget.tokensPerDay); it resets at ${tomorrow()}.` } });
    const hook = await herald.request(`/hooks/github`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ title: 'bug' }) });
    expect(hook.status).toBe(202);
    const { runId } = (await hook.json()) as { runId: string };
    const run = await eventually(async () => {
      const res = (await (await herald.request(`/admin/runs/${runId}`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).json()) as { status: string; error: string };
      return res.status !== 'queued' && res.status !== 'running' && res;
    });
    expect(run).toMatchObject({ status: 'failed', error: `Budget exceeded: agent "sales" has used 5 of its 5 tokens per day (agents.list[id=sales].budget.tokensPerDay); it resets at ${tomorrow()}.` });
    expect(model.requests).toHaveLength(1);
  });

  it('counts costPerMonth at the prices of models.prices', async () => {
    // 5 tokens at 100,000 per million: 0.5 a call
    const herald = await start(config({ key: { costPerMonth: 1 } }));
    const client = clientOf(herald);
    await ask(client);
    await ask(client);
    await expect(ask(client)).rejects.toMatchObject({
      status: 429,
      error: { message: `Budget exceeded: API key "test" has used 1 of its 1 cost per month (platform.apiKeys[name=test].budget.costPerMonth); it resets at ${nextMonth()}.` },
    });
  });

  it('holds across two heralds on one PostgreSQL schema: the count is in the store', async () => {
    const schema = uniqueSchema('herald_budget');
    const both: TestApp[] = [];
    try {
      const c = config({ key: { tokensPerDay: 6 }, storage: { postgres: { url: PG_URL, schema, poolSize: 2 } } });
      // one after the other: the first migrates the schema
      const a = await start(c);
      both.push(a);
      const b = await start(c);
      both.push(b);
      await ask(clientOf(a));
      await ask(clientOf(b));
      // spent on two replicas (B's tokens reach the store just after its answer), refused on either
      await eventually(async () => {
        const report = (await (await a.request(`/admin/usage?by=key`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).json()) as { data: { totalTokens: number }[] };
        return report.data[0]?.totalTokens === 10;
      });
      await expect(ask(clientOf(a))).rejects.toMatchObject({ status: 429, code: 'insufficient_quota' });
      await expect(ask(clientOf(b))).rejects.toMatchObject({ status: 429, code: 'insufficient_quota' });
      expect(model.requests).toHaveLength(2);
    } finally {
      for (const herald of both) await herald.stop();
      await dropSchema(schema);
    }
  });
});
