import OpenAI, { toFile } from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { EMBEDDINGS_KEY, startHeldEmbeddings } from '../../helpers/fake-embeddings.js';
import type { FakeServer } from '../../helpers/fake-server.js';
import { API_KEY, eventually } from '../../helpers/start-herald.js';
import { testApp, type TestApp } from '../app-fixture.js';

const OTHER_KEY = 'sk-other-0123456789abcdef0123';
let herald: TestApp | undefined;
let fake: FakeServer | undefined;
afterEach(async () => {
  // the provider first: a stop waits for the file being read, whose embeddings it holds
  await fake?.close();
  await herald?.stop();
  herald = fake = undefined;
});

/** held embeddings, closed after the test */
async function heldEmbeddings() {
  const held = await startHeldEmbeddings();
  fake = held.fake;
  return held;
}

// generous waits: files are parsed and embedded for real, on a machine that may be loaded
describe('vector store files go through a bounded queue', { timeout: 120_000 }, () => {
  it('reads files a worker at a time, and answers 429 with Retry-After naming the limit past the files in progress per key and in total', async () => {
    const { fake, release } = await heldEmbeddings();
    herald = await testApp({
      models: { providers: { fake: { api: 'openai', baseUrl: `${fake.url}/v1`, apiKey: EMBEDDINGS_KEY } } },
      platform: {
        apiKeys: [{ name: 'test', key: API_KEY }, { name: 'other', key: OTHER_KEY }],
        knowledge: { embeddings: { model: 'fake/embed-1' }, workers: 1, maxFilesInProgressPerKey: 2, maxFilesInProgress: 3 },
      },
    });
    const client = new OpenAI({ baseURL: `${herald.origin}/v1`, fetch: herald.fetch, apiKey: API_KEY, maxRetries: 0 });
    const other = new OpenAI({ baseURL: `${herald.origin}/v1`, fetch: herald.fetch, apiKey: OTHER_KEY, maxRetries: 0 });
    const upload = async (as: OpenAI, i: number) => (await as.files.create({ file: await toFile(Buffer.from(`# Note ${i}\n\nThe warehouse ships order ${i} on Monday.\n`), `note-${i}.md`), purpose: 'assistants' })).id;
    const mine = [await upload(client, 1), await upload(client, 2), await upload(client, 3)];
    const theirs = [await upload(other, 4), await upload(other, 5)];

    const first = await client.vectorStores.create({ name: 'A', file_ids: [mine[0]!, mine[1]!] });
    expect(first.file_counts.in_progress).toBe(2);
    // one worker: one file read (and waiting on its embeddings), the other queued as a name only
    await eventually(() => fake.requests.length === 1, 60_000);

    const perKey = await herald.request('/v1/vector_stores', {
      method: 'POST', headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'B', file_ids: [mine[2]] }),
    });
    expect(perKey.status).toBe(429);
    expect(Number(perKey.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await perKey.json()).toMatchObject({ error: { code: 'rate_limit_exceeded', message: expect.stringContaining('platform.knowledge.maxFilesInProgressPerKey is 2') } });
    // refused whole: no store B was made
    expect((await client.vectorStores.list()).data.map((s) => s.name)).not.toContain('B');
    await expect(client.vectorStores.files.create(first.id, { file_id: mine[2]! })).rejects.toMatchObject({ status: 429 });

    const theirStore = await other.vectorStores.create({ name: 'C', file_ids: [theirs[0]!] });
    await expect(other.vectorStores.fileBatches.create(theirStore.id, { file_ids: [theirs[1]!] })).rejects.toMatchObject({
      status: 429,
      message: expect.stringContaining('platform.knowledge.maxFilesInProgress is 3'),
    });
    expect(fake.requests).toHaveLength(1);

    release();
    await eventually(async () => (await client.vectorStores.retrieve(first.id)).file_counts.completed === 2 && (await other.vectorStores.retrieve(theirStore.id)).file_counts.completed === 1, 60_000);
    // the places are given back as files complete
    expect((await client.vectorStores.files.create(first.id, { file_id: mine[2]! })).status).toBe('in_progress');
  });

  it('takes up the files a stopped process left in progress, a worker at a time', async () => {
    const { fake, release } = await heldEmbeddings();
    herald = await testApp({
      models: { providers: { fake: { api: 'openai', baseUrl: `${fake.url}/v1`, apiKey: EMBEDDINGS_KEY } } },
      platform: { knowledge: { embeddings: { model: 'fake/embed-1' }, workers: 1 } },
    });
    const client = new OpenAI({ baseURL: `${herald.origin}/v1`, fetch: herald.fetch, apiKey: API_KEY, maxRetries: 0 });
    const ids = [];
    for (let i = 0; i < 4; i++) ids.push((await client.files.create({ file: await toFile(Buffer.from(`# Note ${i}\n\nOrder ${i} ships on Monday.\n`), `n${i}.md`), purpose: 'assistants' })).id);
    // written as a process that died with them in progress would leave them
    const store = await client.vectorStores.create({ name: 'Left' });
    for (const fileId of ids) await herald.gateway.store.vectorStores.addFile({ vectorStoreId: store.id, fileId, status: 'in_progress', lastError: null, documentId: null, bytes: 30, createdAt: Date.now() });
    herald = await herald.restart();
    const again = new OpenAI({ baseURL: `${herald.origin}/v1`, fetch: herald.fetch, apiKey: API_KEY, maxRetries: 0 });
    await eventually(() => fake.requests.length === 1, 60_000);
    expect((await again.vectorStores.retrieve(store.id)).file_counts.in_progress).toBe(4);
    // the others wait as names: not one more is read while the first holds the worker
    expect(fake.requests).toHaveLength(1);
    release();
    await eventually(async () => (await again.vectorStores.retrieve(store.id)).file_counts.completed === 4, 60_000);
    expect(fake.requests).toHaveLength(4);
  });
});
