import fs from 'node:fs';
import OpenAI, { toFile } from 'openai';
import { describe, expect, it } from 'vitest';
import { API_KEY, eventually } from '../../helpers/start-herald.js';
import { testApp, type TestApp } from '../app-fixture.js';

const SALES_KEY = 'sk-sales-0123456789abcdef0123';
const agents = [{ id: 'support', name: 'Support' }, { id: 'sales', name: 'Sales' }];
const overrides = (list: unknown[]) => ({ agents: { list }, platform: { apiKeys: [{ name: 'test', key: API_KEY }, { name: 'sales-only', key: SALES_KEY, agents: ['sales'] }] } });
const pricing = '# Pricing\n\nThe team plan costs 12 euros per seat and month.\n';

// made inside a test, each herald stops when it ends (app-fixture.ts)
let herald: TestApp;
const clientOf = (key: string) => new OpenAI({ baseURL: `${herald.origin}/v1`, apiKey: key, maxRetries: 0, fetch: herald.fetch });

describe('vector stores attached to agents (agents.list[].vectorStores)', () => {
  it("are searched by the agent's turns and listed with it, and keys of that agent see them, from a reload on", async () => {
    herald = await testApp(overrides(agents));
    const client = clientOf(API_KEY);
    const sales = clientOf(SALES_KEY);
    const store = await client.vectorStores.create({ name: 'Pricing' });
    await client.vectorStores.files.uploadAndPoll(store.id, await toFile(Buffer.from(pricing), 'pricing.md'));
    const before = await sales.chat.completions.create({ model: 'sales', messages: [{ role: 'user', content: 'What does the team plan cost per seat?' }] });
    expect(before.choices[0]!.message.content).not.toContain('12 euros');
    await expect(sales.vectorStores.retrieve(store.id)).rejects.toMatchObject({ status: 404 });

    const written = JSON.parse(fs.readFileSync(herald.configFile, 'utf8'));
    fs.writeFileSync(herald.configFile, JSON.stringify({ ...written, ...overrides([agents[0], { ...agents[1], vectorStores: [store.id] }]) }));
    await herald.gateway.reload('test');
    const agent = (await (await herald.request(`/v1/agents/sales`, { headers: { authorization: `Bearer ${SALES_KEY}` } })).json()) as { vector_store_ids: string[] };
    expect(agent.vector_store_ids).toEqual(['vs_agent_sales', store.id]);
    const after = await sales.chat.completions.create({ model: 'sales', messages: [{ role: 'user', content: 'What does the team plan cost per seat?' }] });
    expect(after.choices[0]!.message.content).toContain('12 euros per seat');
    expect((await sales.vectorStores.retrieve(store.id)).name).toBe('Pricing');
    // the support agent's turns do not search it
    const other = await client.chat.completions.create({ model: 'support', messages: [{ role: 'user', content: 'What does the team plan cost per seat?' }] });
    expect(other.choices[0]!.message.content).not.toContain('12 euros');
  });

  it('refuses an id that is not a vector store id, naming the key', async () => {
    await expect(testApp(overrides([{ id: 'sales', vectorStores: ['pricing'] }]))).rejects.toThrow(/agents\.list\.0\.vectorStores\.0|agents\.list\[0\]\.vectorStores\[0\]/);
  });

  it('reads again, at the next start, a file a stopped herald left in progress', async () => {
    herald = await testApp(overrides(agents));
    const client = clientOf(API_KEY);
    const store = await client.vectorStores.create({ name: 'Left' });
    const file = await client.files.create({ file: await toFile(Buffer.from(pricing), 'pricing.md'), purpose: 'assistants' });
    // as a process stopped between accepting the file and reading it leaves it
    await herald.gateway.store.vectorStores.addFile({ vectorStoreId: store.id, fileId: file.id, status: 'in_progress', lastError: null, documentId: null, bytes: file.bytes, createdAt: Date.now() });
    expect((await client.vectorStores.files.retrieve(file.id, { vector_store_id: store.id })).status).toBe('in_progress');
    herald = await herald.restart();
    const again = clientOf(API_KEY);
    await eventually(async () => (await again.vectorStores.files.retrieve(file.id, { vector_store_id: store.id })).status === 'completed');
    expect((await again.vectorStores.search(store.id, { query: 'team plan seat' })).data[0]).toMatchObject({ file_id: file.id, filename: 'pricing.md' });
  });
});
