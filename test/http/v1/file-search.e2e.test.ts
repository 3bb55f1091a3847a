import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY } from '../../helpers/start-herald.js';
import { testApp, type TestApp } from '../app-fixture.js';
import { startFakeUpstream } from './fake-openai-upstream.js';

const SALES_KEY = 'sk-sales-0123456789abcdef0123';
let herald: TestApp;
let upstream: Awaited<ReturnType<typeof startFakeUpstream>>;
let client: OpenAI;
let sales: OpenAI;
let storeId: string;
let refundsFile: string;

const refunds = '# Refunds\n\nRefunds are issued within 14 days of purchase. Send the receipt to billing@example.com.\n';
const shipping = '# Shipping\n\nOrders leave the warehouse within two working days.\n';

beforeAll(async () => {
  upstream = await startFakeUpstream();
  herald = await testApp({
    models: { providers: { up: { api: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'upstream-secret-key' } } },
    agents: { list: [{ id: 'support', name: 'Support' }, { id: 'analyst', model: 'up/gpt-test' }, { id: 'sales' }] },
    platform: { apiKeys: [{ name: 'test', key: API_KEY }, { name: 'sales-only', key: SALES_KEY, agents: ['sales'] }] },
  });
  client = new OpenAI({ baseURL: `${herald.origin}/v1`, fetch: herald.fetch, apiKey: API_KEY, maxRetries: 0 });
  sales = new OpenAI({ baseURL: `${herald.origin}/v1`, fetch: herald.fetch, apiKey: SALES_KEY, maxRetries: 0 });
  const store = await client.vectorStores.create({ name: 'Policies' });
  storeId = store.id;
  refundsFile = (await client.vectorStores.files.uploadAndPoll(storeId, await toFile(Buffer.from(refunds), 'refunds.md'))).id;
  await client.vectorStores.files.uploadAndPoll(storeId, await toFile(Buffer.from(shipping), 'shipping.md'));
});
afterAll(async () => {
  await herald?.stop();
  await upstream?.close();
});

type Item = OpenAI.Responses.ResponseOutputItem;
const messageOf = (output: Item[]) => output.find((i): i is OpenAI.Responses.ResponseOutputMessage => i.type === 'message')!;
const searchOf = (output: Item[]) => output.find((i): i is OpenAI.Responses.ResponseFileSearchToolCall => i.type === 'file_search_call')!;

describe('the file_search tool on /v1/responses', () => {
  it('answers from the vector store with the embedded model: a file_search_call item, then file_citation annotations naming the file', async () => {
    const response = await client.responses.create({
      model: 'support',
      input: 'How many days do I have for a refund?',
      tools: [{ type: 'file_search', vector_store_ids: [storeId], max_num_results: 2 }],
    });
    expect(response.output.map((i) => i.type)).toEqual(['file_search_call', 'message']);
    const search = searchOf(response.output);
    expect(search).toMatchObject({ type: 'file_search_call', status: 'completed', queries: ['How many days do I have for a refund?'], results: null });
    expect(search.id).toMatch(/^fs_/);
    expect(response.output_text).toContain('within 14 days of purchase');
    const part = messageOf(response.output).content[0] as OpenAI.Responses.ResponseOutputText;
    expect(part.annotations[0]).toMatchObject({ type: 'file_citation', file_id: refundsFile, filename: 'refunds.md' });
    expect(response.tools).toEqual([{ type: 'file_search', vector_store_ids: [storeId], max_num_results: 2 }]);
    // kept: GET shows the same items
    expect((await client.responses.retrieve(response.id)).output.map((i) => i.type)).toEqual(['file_search_call', 'message']);
  });

  it('shows the passages found with include: ["file_search_call.results"]', async () => {
    const response = await client.responses.create({
      model: 'support',
      input: 'When do orders leave the warehouse?',
      tools: [{ type: 'file_search', vector_store_ids: [storeId] }],
      include: ['file_search_call.results'],
    });
    const results = searchOf(response.output).results!;
    expect(results[0]).toMatchObject({ filename: 'shipping.md', text: expect.stringContaining('two working days'), attributes: {} });
    expect(results[0]!.file_id).toMatch(/^file-/);
    expect(results[0]!.score).toBeGreaterThan(0);
  });

  it('gives a provider model the passages and tells no hosted tool upstream', async () => {
    upstream.reply({ text: 'Refunds take up to 14 days [1].' });
    const response = await client.responses.create({
      model: 'analyst',
      input: 'How long do refunds take?',
      tools: [{ type: 'file_search', vector_store_ids: [storeId] }],
      include: ['file_search_call.results'],
    });
    const sent = upstream.requests.at(-1)!.json;
    expect(sent.tools).toBeUndefined();
    expect(sent.messages[0].content).toContain('Refunds are issued within 14 days of purchase.');
    expect(response.output.map((i) => i.type)).toEqual(['file_search_call', 'message']);
    const part = messageOf(response.output).content[0] as OpenAI.Responses.ResponseOutputText;
    expect(part.annotations[0]).toMatchObject({ type: 'file_citation', file_id: refundsFile, filename: 'refunds.md', index: response.output_text.indexOf('[1]') });
    expect(searchOf(response.output).results![0]).toMatchObject({ file_id: refundsFile });
  });

  it('streams the file search as OpenAI does: the item added, in_progress, searching, completed, done, before the message', async () => {
    const stream = client.responses.stream({
      model: 'support',
      input: 'How many days do I have for a refund?',
      tools: [{ type: 'file_search', vector_store_ids: [storeId] }],
      include: ['file_search_call.results'],
    });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    const final = await stream.finalResponse();
    const searchEvents = types.filter((t) => t.includes('file_search') || t.startsWith('response.output_item'));
    expect(searchEvents.slice(0, 5)).toEqual([
      'response.output_item.added',
      'response.file_search_call.in_progress',
      'response.file_search_call.searching',
      'response.file_search_call.completed',
      'response.output_item.done',
    ]);
    expect(types.indexOf('response.output_text.delta')).toBeGreaterThan(types.indexOf('response.file_search_call.completed'));
    expect(searchOf(final.output).results![0]).toMatchObject({ file_id: refundsFile });
    expect(final.output_text).toContain('within 14 days');
  });

  it("searches an agent's own knowledge as vs_agent_<id>, and refuses a store the key may not see (404 naming it)", async () => {
    await expect(
      sales.responses.create({ model: 'sales', input: 'refunds?', tools: [{ type: 'file_search', vector_store_ids: ['vs_agent_sales', storeId] }] }),
    ).rejects.toMatchObject({ status: 404, code: 'vector_store_not_found', param: 'tools[0].vector_store_ids[1]' });
    await client.vectorStores.files.uploadAndPoll('vs_agent_sales', await toFile(Buffer.from('# Discounts\n\nTeams of ten get a 20% discount.\n'), 'discounts.md'));
    const response = await sales.responses.create({ model: 'sales', input: 'What discount do teams get?', tools: [{ type: 'file_search', vector_store_ids: ['vs_agent_sales'] }] });
    expect(response.output_text).toContain('20% discount');
  });

  it('refuses filters and a second file_search tool by name', async () => {
    await expect(
      client.responses.create({ model: 'support', input: 'x', tools: [{ type: 'file_search', vector_store_ids: [storeId], filters: { type: 'eq', key: 'a', value: 'b' } }] }),
    ).rejects.toMatchObject({ status: 400, code: 'unsupported_parameter', param: 'tools[0].filters' });
    await expect(
      client.responses.create({ model: 'support', input: 'x', tools: [{ type: 'file_search', vector_store_ids: [storeId] }, { type: 'file_search', vector_store_ids: [storeId] }] }),
    ).rejects.toMatchObject({ status: 400, param: 'tools[1]' });
  });
});
