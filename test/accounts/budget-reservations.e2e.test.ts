import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunRecord } from '../../src/store/port.js';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { dropSchema, PG_URL, uniqueSchema } from '../helpers/postgres.js';
import { API_KEY, eventually, hookHeaders } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';

let model: FakeServer | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
});

/** an OpenAI-compatible model whose every answer spends 1,000 tokens, held until the test lets them go */
async function heldModel() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  model = await startFakeServer(async (req) => {
    await opened;
    return {
      body: {
        id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: req.json?.model,
        choices: [{ index: 0, message: { role: 'assistant', content: 'A long answer.' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 10, completion_tokens: 990, total_tokens: 1000 },
      },
    };
  });
  return { model, release: open };
}

const config = (url: string, budgets: { key?: object; agent?: object }, storage?: object) => ({
  models: { providers: { fake: { api: 'openai', baseUrl: `${url}/v1` } } },
  agents: { list: [{ id: 'sales', model: 'fake/gpt-4o-mini', ...(budgets.agent && { budget: budgets.agent }) }] },
  hooks: { mappings: [{ id: 'leads', match: { path: 'leads' }, messageTemplate: 'lead {{name}}', agentId: 'sales', deliver: false }] },
  platform: { apiKeys: [{ name: 'test', key: API_KEY, ...(budgets.key && { budget: budgets.key }) }] },
  ...(storage && { storage }),
});
const clientOf = (herald: TestApp) => new OpenAI({ baseURL: `${herald.origin}/v1`, apiKey: API_KEY, maxRetries: 0, fetch: herald.fetch });
const ask = (client: OpenAI, stream = false) =>
  client.chat.completions.create({ model: 'sales', max_tokens: 1000, stream, messages: [{ role: 'user', content: 'Write the quarterly report.' }] } as never) as Promise<unknown>;

describe('budgets reserve before the model call', () => {
  it('eight concurrent calls of 1,000 tokens against a 1,500-token budget: two reach the model, six get 429 insufficient_quota at once', async () => {
    const { model, release } = await heldModel();
    const herald = await testApp(config(model.url, { key: { tokensPerDay: 1500 } }));
    const client = clientOf(herald);
    const calls = Array.from({ length: 8 }, () => ask(client).then(() => 'answered', (e: { status?: number; code?: string }) => `${e.status} ${e.code}`));
    // the six refusals come while the two admitted calls are still with the model
    const refused: string[] = await eventually(async () => {
      const settled = await Promise.all(calls.map((c) => Promise.race([c, Promise.resolve('pending')])));
      return settled.filter((s) => s === '429 insufficient_quota').length === 6 ? settled : undefined;
    });
    expect(refused.filter((s) => s !== '429 insufficient_quota')).toEqual(['pending', 'pending']);
    await eventually(() => model.requests.length === 2);
    // a streamed call past the budget is a 429 too, not an error inside a 200 stream
    await expect(ask(client, true)).rejects.toMatchObject({ status: 429, code: 'insufficient_quota' });
    release();
    expect((await Promise.all(calls)).filter((s) => s === 'answered')).toHaveLength(2);
    // what the calls really spent replaced their estimates
    await eventually(async () => (await herald.gateway.store.usage.spent({ keyName: 'test' }, 0)).tokens === 2000);
    expect(model.requests).toHaveLength(2);
  });

  it("holds an agent's budget over its hook runs: runs past it fail with the budget's sentence", async () => {
    const { model, release } = await heldModel();
    const herald = await testApp(config(model.url, { agent: { tokensPerDay: 1500 } }));
    const runIds: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await herald.request('/hooks/leads', { method: 'POST', headers: { ...hookHeaders(), 'content-type': 'application/json' }, body: JSON.stringify({ name: `lead ${i}` }) });
      runIds.push(((await res.json()) as { runId: string }).runId);
    }
    // agents.defaults.maxConcurrent (4) turns at once: two reserve, two are refused before their model is asked
    const failed: (RunRecord | undefined)[] = await eventually(async () => {
      const runs = await Promise.all(runIds.map((id) => herald.gateway.store.runs.get(id)));
      const f = runs.filter((r) => r?.status === 'failed');
      return f.length === 2 ? f : undefined;
    }, 30_000);
    await eventually(() => model.requests.length === 2);
    for (const run of failed) expect(run!.error).toMatch(/^Budget exceeded: agent "sales" has used \d+ of its 1500 tokens per day \(agents\.list\[id=sales\]\.budget\.tokensPerDay\)/);
    release();
    await eventually(async () => (await Promise.all(runIds.map((id) => herald.gateway.store.runs.get(id)))).filter((r) => r?.status === 'succeeded').length === 2, 30_000);
  });

  it('holds across two heralds on one PostgreSQL schema: the reservations are in the store', async () => {
    const { model, release } = await heldModel();
    const schema = uniqueSchema('herald_reserve');
    const both: TestApp[] = [];
    try {
      const c = config(model.url, { key: { tokensPerDay: 1500 } }, { postgres: { url: PG_URL, schema, poolSize: 4 } });
      both.push(await testApp(c));
      both.push(await testApp(c));
      const calls = Array.from({ length: 8 }, (_, i) => ask(clientOf(both[i % 2]!)).then(() => 'answered', (e: { status?: number; code?: string }) => `${e.status} ${e.code}`));
      await eventually(async () => {
        const settled = await Promise.all(calls.map((c) => Promise.race([c, Promise.resolve('pending')])));
        return settled.filter((s) => s === '429 insufficient_quota').length === 6;
      }, 30_000);
      await eventually(() => model.requests.length === 2);
      release();
      expect((await Promise.all(calls)).filter((s) => s === 'answered')).toHaveLength(2);
    } finally {
      for (const herald of both) await herald.stop();
      await dropSchema(schema);
    }
  });
});
