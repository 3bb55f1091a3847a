import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, eventually } from '../../helpers/start-herald.js';
import { testApp, type TestApp } from '../app-fixture.js';

const SALES_KEY = 'sk-sales-0123456789abcdef0123';
let herald: TestApp;
let client: OpenAI;
let sales: OpenAI;

const refunds = '# Refunds\n\nRefunds are issued within 14 days of purchase. Send the receipt to billing@example.com.\n';
const shipping = '# Shipping\n\nOrders leave the warehouse within two working days.\n';

const connect = () => {
  client = new OpenAI({ baseURL: `${herald.origin}/v1`, fetch: herald.fetch, apiKey: API_KEY, maxRetries: 0 });
  sales = new OpenAI({ baseURL: `${herald.origin}/v1`, fetch: herald.fetch, apiKey: SALES_KEY, maxRetries: 0 });
};

beforeAll(async () => {
  herald = await testApp({
    agents: { list: [{ id: 'support', name: 'Support' }, { id: 'sales', name: 'Sales' }] },
    platform: { apiKeys: [{ name: 'test', key: API_KEY }, { name: 'sales-only', key: SALES_KEY, agents: ['sales'] }] },
  });
  connect();
});
afterAll(async () => herald?.stop());

describe('/v1/vector_stores with the official client', () => {
  it('creates a store, uploads and polls a file until completed, and searches it', async () => {
    const store = await client.vectorStores.create({ name: 'Handbook', metadata: { team: 'care' } });
    expect(store).toMatchObject({ object: 'vector_store', name: 'Handbook', metadata: { team: 'care' }, status: 'completed', file_counts: { total: 0 } });
    expect(store.id).toMatch(/^vs_/);
    const file = await client.vectorStores.files.uploadAndPoll(store.id, await toFile(Buffer.from(refunds), 'refunds.md'));
    expect(file).toMatchObject({ object: 'vector_store.file', vector_store_id: store.id, status: 'completed', last_error: null, usage_bytes: Buffer.byteLength(refunds) });
    expect(file.id).toMatch(/^file-/);
    expect((await client.files.retrieve(file.id)).filename).toBe('refunds.md');

    const content = await client.vectorStores.files.content(file.id, { vector_store_id: store.id });
    expect(content.data).toEqual([{ type: 'text', text: expect.stringContaining('Refunds are issued within 14 days of purchase.') }]);
    const page = await client.vectorStores.search(store.id, { query: 'How many days for a refund?' });
    expect(page.data).toHaveLength(1);
    expect(page.data[0]).toMatchObject({ file_id: file.id, filename: 'refunds.md', content: [{ type: 'text', text: expect.stringContaining('within 14 days') }] });
    expect(page.data[0]!.score).toBeGreaterThan(0);
    const raw = await herald.request(`/v1/vector_stores/${store.id}/search`, {
      method: 'POST', headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ query: ['refund', 'receipt'], max_num_results: 1 }),
    });
    expect(await raw.json()).toMatchObject({ object: 'vector_store.search_results.page', search_query: ['refund', 'receipt'], has_more: false, next_page: null });

    const again = await client.vectorStores.retrieve(store.id);
    expect(again).toMatchObject({ status: 'completed', file_counts: { in_progress: 0, completed: 1, failed: 0, cancelled: 0, total: 1 }, usage_bytes: Buffer.byteLength(refunds) });
  });

  it('takes file_ids at creation, lists stores and files with cursors, and deletes', async () => {
    const a = await client.files.create({ file: await toFile(Buffer.from(refunds), 'refunds.md'), purpose: 'assistants' });
    const b = await client.files.create({ file: await toFile(Buffer.from(shipping), 'shipping.md'), purpose: 'assistants' });
    const store = await client.vectorStores.create({ name: 'Two', file_ids: [a.id, b.id] });
    expect(store.file_counts.total).toBe(2);
    await eventually(async () => (await client.vectorStores.retrieve(store.id)).status === 'completed');
    // newest first unless asked otherwise, as OpenAI's lists
    const files = await client.vectorStores.files.list(store.id, { limit: 1 });
    expect(files.data.map((f) => f.id)).toEqual([b.id]);
    expect(files.has_more).toBe(true);
    const next = await files.getNextPage();
    expect(next.data.map((f) => f.id)).toEqual([a.id]);
    expect((await client.vectorStores.files.list(store.id, { order: 'asc' })).data.map((f) => f.id)).toEqual([a.id, b.id]);
    const ids = [];
    for await (const s of client.vectorStores.list()) ids.push(s.id);
    expect(ids).toEqual(expect.arrayContaining(['vs_agent_support', 'vs_agent_sales', store.id]));

    expect((await client.vectorStores.search(store.id, { query: 'warehouse' })).data.map((r) => r.file_id)).toEqual([b.id]);
    expect(await client.vectorStores.files.delete(b.id, { vector_store_id: store.id })).toEqual({ id: b.id, object: 'vector_store.file.deleted', deleted: true });
    expect((await client.vectorStores.search(store.id, { query: 'warehouse' })).data).toEqual([]);
    // the file itself stays; deleting it takes it out of every store
    expect((await client.files.retrieve(b.id)).id).toBe(b.id);
    await client.files.delete(a.id);
    expect((await client.vectorStores.search(store.id, { query: 'refund' })).data).toEqual([]);
    expect((await client.vectorStores.files.list(store.id)).data).toEqual([]);

    expect(await client.vectorStores.delete(store.id)).toEqual({ id: store.id, object: 'vector_store.deleted', deleted: true });
    await expect(client.vectorStores.retrieve(store.id)).rejects.toMatchObject({ status: 404, code: 'vector_store_not_found' });
  });

  it('adds files together with fileBatches.uploadAndPoll, and lists the batch\'s files', async () => {
    const store = await client.vectorStores.create({ name: 'Batch' });
    const batch = await client.vectorStores.fileBatches.uploadAndPoll(store.id, {
      files: [await toFile(Buffer.from(refunds), 'refunds.md'), await toFile(Buffer.from(shipping), 'shipping.md')],
    });
    expect(batch).toMatchObject({ object: 'vector_store.files_batch', vector_store_id: store.id, status: 'completed', file_counts: { completed: 2, total: 2 } });
    expect(batch.id).toMatch(/^vsfb_/);
    const files = await client.vectorStores.fileBatches.listFiles(batch.id, { vector_store_id: store.id });
    expect(files.data.map((f) => f.status)).toEqual(['completed', 'completed']);
    expect((await client.vectorStores.search(store.id, { query: 'warehouse' })).data[0]!.filename).toBe('shipping.md');
    // nothing left to stop: a finished batch stays completed
    expect((await client.vectorStores.fileBatches.cancel(batch.id, { vector_store_id: store.id })).status).toBe('completed');
    await expect(client.vectorStores.fileBatches.retrieve('vsfb_nope', { vector_store_id: store.id })).rejects.toMatchObject({ status: 404, param: 'batch_id' });
  });

  it('marks a file it cannot read failed, with last_error', async () => {
    const store = await client.vectorStores.create({ name: 'Broken' });
    const file = await client.vectorStores.files.uploadAndPoll(store.id, await toFile(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0, 1, 2]), 'image.png'));
    expect(file.status).toBe('failed');
    expect(file.last_error).toMatchObject({ code: 'unsupported_file', message: expect.any(String) });
    expect((await client.vectorStores.retrieve(store.id)).file_counts).toMatchObject({ failed: 1, total: 1 });
  });

  it("is an agent's knowledge: vs_agent_<id>, listed with the agent, searched by its turns", async () => {
    const agent = (await (await herald.request(`/v1/agents/support`, { headers: { authorization: `Bearer ${API_KEY}` } })).json()) as { vector_store_ids: string[] };
    expect(agent.vector_store_ids).toEqual(['vs_agent_support']);
    const file = await client.vectorStores.files.uploadAndPoll('vs_agent_support', await toFile(Buffer.from(shipping), 'shipping.md'));
    expect(file.status).toBe('completed');
    const answer = await client.chat.completions.create({ model: 'support', messages: [{ role: 'user', content: 'When do orders leave the warehouse?' }] });
    expect(answer.choices[0]!.message.content).toContain('within two working days');
    // chat's citations and its url_citation name the file (its /v1/files object), not an internal document
    const chatCited = answer as unknown as { citations: { file_id?: string }[]; choices: { message: { annotations: { url_citation: { url: string } }[] } }[] };
    expect(chatCited.citations[0]!.file_id).toBe(file.id);
    expect(chatCited.choices[0]!.message.annotations[0]!.url_citation.url).toBe(`${herald.origin}/v1/files/${file.id}`);
    expect((await herald.request(new URL(chatCited.choices[0]!.message.annotations[0]!.url_citation.url).pathname, { headers: { authorization: `Bearer ${API_KEY}` } })).status).toBe(200);
    // a Responses answer cites the file added to the agent's store by its file id
    const response = await client.responses.create({ model: 'support', input: 'When do orders leave the warehouse?' });
    const part = (response.output[0] as OpenAI.Responses.ResponseOutputMessage).content[0] as OpenAI.Responses.ResponseOutputText;
    expect(part.annotations[0]).toMatchObject({ type: 'file_citation', file_id: file.id, filename: 'shipping.md' });
    await expect(client.vectorStores.delete('vs_agent_support')).rejects.toMatchObject({ status: 409, code: 'vector_store_of_agent' });
  });

  it('shows a key limited to some agents only their stores (404 for the others)', async () => {
    const mine = await sales.vectorStores.create({ name: 'Sales' });
    const theirs = await client.vectorStores.create({ name: 'Everyone' });
    const ids = (await sales.vectorStores.list()).data.map((s) => s.id);
    expect(ids).toEqual([mine.id, 'vs_agent_sales']);
    await expect(sales.vectorStores.retrieve(theirs.id)).rejects.toMatchObject({ status: 404 });
    await expect(sales.vectorStores.retrieve('vs_agent_support')).rejects.toMatchObject({ status: 404 });
    await expect(sales.vectorStores.search(theirs.id, { query: 'x' })).rejects.toMatchObject({ status: 404 });
    const file = await client.files.create({ file: await toFile(Buffer.from(refunds), 'refunds.md'), purpose: 'assistants' });
    await expect(sales.vectorStores.files.create(mine.id, { file_id: file.id })).rejects.toMatchObject({ status: 404, param: 'file_id' });
  });

  it('keeps stores, files and their chunks across a restart', async () => {
    const store = await client.vectorStores.create({ name: 'Kept' });
    const file = await client.vectorStores.files.uploadAndPoll(store.id, await toFile(Buffer.from(refunds), 'refunds.md'));
    herald = await herald.restart();
    connect();
    expect(await client.vectorStores.retrieve(store.id)).toMatchObject({ name: 'Kept', file_counts: { completed: 1 } });
    expect((await client.vectorStores.search(store.id, { query: 'refund receipt' })).data[0]).toMatchObject({ file_id: file.id });
  });
});
