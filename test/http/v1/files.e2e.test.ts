import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, baseConfig } from '../../helpers/start-herald.js';
import { testApp, type TestApp } from '../app-fixture.js';

const SALES_KEY = 'sk-sales-0123456789abcdef0123';
let herald: TestApp;
let client: OpenAI;
let sales: OpenAI;

const config = baseConfig({
  agents: { list: [{ id: 'support', name: 'Support' }, { id: 'sales', name: 'Sales' }] },
  platform: { apiKeys: [{ name: 'test', key: API_KEY }, { name: 'sales-only', key: SALES_KEY, agents: ['sales'] }] },
});

beforeAll(async () => {
  herald = await testApp(config);
  client = new OpenAI({ baseURL: `${herald.origin}/v1`, fetch: herald.fetch, apiKey: API_KEY, maxRetries: 0 });
  sales = new OpenAI({ baseURL: `${herald.origin}/v1`, fetch: herald.fetch, apiKey: SALES_KEY, maxRetries: 0 });
});
afterAll(async () => herald?.stop());

const text = '# Refunds\n\nRefunds are issued within 14 days of purchase.\n';

describe('/v1/files with the official client', () => {
  it('uploads, retrieves, lists, reads back and deletes a file', async () => {
    const file = await client.files.create({ file: await toFile(Buffer.from(text), 'refunds.md'), purpose: 'assistants' });
    expect(file).toMatchObject({ object: 'file', bytes: Buffer.byteLength(text), filename: 'refunds.md', purpose: 'assistants', status: 'processed' });
    expect(file.id).toMatch(/^file-/);
    expect(file.created_at).toBeGreaterThan(1_700_000_000);
    expect(await client.files.retrieve(file.id)).toEqual(file);
    const listed = [];
    for await (const f of client.files.list()) listed.push(f.id);
    expect(listed).toContain(file.id);
    const content = await client.files.content(file.id);
    expect(await content.text()).toBe(text);
    expect(await client.files.delete(file.id)).toEqual({ id: file.id, object: 'file', deleted: true });
    await expect(client.files.retrieve(file.id)).rejects.toMatchObject({ status: 404, code: 'file_not_found', param: 'file_id' });
  });

  it('filters the list by purpose', async () => {
    const mine = await client.files.create({ file: await toFile(Buffer.from('notes'), 'notes.txt'), purpose: 'user_data' });
    const page = await client.files.list({ purpose: 'user_data' });
    expect(page.data.map((f) => f.purpose)).toEqual(page.data.map(() => 'user_data'));
    expect(page.data.map((f) => f.id)).toContain(mine.id);
  });

  it('refuses a missing or unknown purpose, naming it', async () => {
    const form = new FormData();
    form.append('file', new Blob(['x']), 'x.txt');
    form.append('purpose', 'fine-tune');
    const response = await herald.request(`/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${API_KEY}` }, body: form });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: { message: 'purpose must be one of "assistants", "user_data", not "fine-tune"', type: 'invalid_request_error', param: 'purpose', code: 'invalid_request_error' },
    });
  });

  it('shows a key limited to some agents only the files of keys sharing one of them (404 for the others)', async () => {
    const everyone = await client.files.create({ file: await toFile(Buffer.from('a'), 'a.txt'), purpose: 'assistants' });
    const salesFile = await sales.files.create({ file: await toFile(Buffer.from('b'), 'b.txt'), purpose: 'assistants' });
    await expect(sales.files.retrieve(everyone.id)).rejects.toMatchObject({ status: 404 });
    await expect(sales.files.content(everyone.id)).rejects.toMatchObject({ status: 404 });
    await expect(sales.files.delete(everyone.id)).rejects.toMatchObject({ status: 404 });
    expect((await sales.files.list()).data.map((f) => f.id)).toEqual([salesFile.id]);
    expect((await client.files.retrieve(salesFile.id)).id).toBe(salesFile.id);
  });

  it('keeps files and their bytes across a restart', async () => {
    const bytes = Buffer.from([0, 1, 2, 255, 254]);
    const file = await client.files.create({ file: await toFile(bytes, 'blob.bin'), purpose: 'user_data' });
    herald = await herald.restart();
    client = new OpenAI({ baseURL: `${herald.origin}/v1`, fetch: herald.fetch, apiKey: API_KEY, maxRetries: 0 });
    sales = new OpenAI({ baseURL: `${herald.origin}/v1`, fetch: herald.fetch, apiKey: SALES_KEY, maxRetries: 0 });
    expect((await client.files.retrieve(file.id)).filename).toBe('blob.bin');
    expect(Buffer.from(await (await client.files.content(file.id)).arrayBuffer())).toEqual(bytes);
  });
});
