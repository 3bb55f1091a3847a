import OpenAI, { toFile } from 'openai';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { EMBEDDINGS_KEY, startHeldEmbeddings } from '../helpers/fake-embeddings.js';
import type { FakeServer } from '../helpers/fake-server.js';
import { dropSchema, PG_URL, uniqueSchema } from '../helpers/postgres.js';
import { API_KEY, eventually, GATEWAY_TOKEN } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';

const auth = { authorization: `Bearer ${API_KEY}` };
/** several chunks at the default chunking (800 characters) */
const handbook = Array.from({ length: 12 }, (_, i) => `## Section ${i}\n\nParcels of zone ${i} leave the warehouse on day ${i} of each week, by courier ${i}.\n`).join('\n').repeat(4);
const JOINED = 'upload waits for the same file being read and stored';

let herald: TestApp | undefined;
let fake: FakeServer | undefined;
afterEach(async () => {
  // the provider first: a stop waits for the file being read, whose embeddings it holds
  await fake?.close();
  await herald?.stop();
  herald = fake = undefined;
});

/**
 * herald with two document workers (two reads of the same bytes could run at once) and an
 * embeddings provider whose answers wait for `release`: the first upload's document is being
 * written (hidden, chunk by chunk) until then
 */
async function heraldWithHeldEmbeddings() {
  const held = await startHeldEmbeddings();
  fake = held.fake;
  herald = await testApp(configWith(fake));
  return { herald, fake, release: held.release };
}

const configWith = (embeddings: FakeServer, storage?: Record<string, unknown>) => ({
  agents: { list: [{ id: 'kb' }] },
  models: { providers: { fake: { api: 'openai', baseUrl: `${embeddings.url}/v1`, apiKey: EMBEDDINGS_KEY } } },
  platform: { knowledge: { embeddings: { model: 'fake/embed-1' }, workers: 2 } },
  ...(storage && { storage }),
});

async function uploadTo(app: TestApp, filename: string) {
  const form = new FormData();
  form.append('agent_id', 'kb');
  form.append('file', new Blob([handbook]), filename);
  const res = await app.request('/v1/knowledge/upload', { method: 'POST', headers: auth, body: form });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function stored(app: TestApp) {
  const metrics = await (await app.request('/metrics', { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).text();
  const gauge = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(metrics)?.[1]);
  return { documents: gauge('herald_knowledge_documents'), chunks: gauge('herald_knowledge_chunks') };
}

// generous waits: files are parsed and embedded for real, on a machine that may be loaded
describe('the same bytes uploaded again while the first upload is being stored', { timeout: 120_000 }, () => {
  it('POST /v1/knowledge/upload: the second waits, both answer the whole document, stored once', async () => {
    const { herald, fake, release } = await heraldWithHeldEmbeddings();
    const upload = (filename: string) => uploadTo(herald, filename);
    const first = upload('handbook.md');
    // its chunks are being embedded: its document is written, not yet whole
    await eventually(() => fake.requests.length >= 1, 60_000);
    let answered = false;
    const second = upload('copy.md').finally(() => (answered = true));
    await eventually(() => answered || herald.logs.some((l) => l.msg === JOINED), 60_000);
    expect(answered).toBe(false);
    release();
    const [a, b] = await Promise.all([first, second]);
    expect([a.status, b.status]).toEqual([201, 200]);
    expect(b.body).toEqual(a.body);
    expect(a.body).toMatchObject({ filename: 'handbook.md', status: 'ready' });
    const { documents, chunks } = await stored(herald);
    expect(chunks).toBeGreaterThan(1);
    expect(a.body.chunk_count).toBe(chunks);
    expect(documents).toBe(1);
    const list = (await (await herald.request('/v1/knowledge?agent_id=kb', { headers: auth })).json()) as { data: unknown[] };
    expect(list.data).toEqual([a.body]);
  });

  it('/v1/files in a vector store: the second file completes with the whole document, stored once', async () => {
    const { herald, fake, release } = await heraldWithHeldEmbeddings();
    const client = new OpenAI({ baseURL: `${herald.origin}/v1`, fetch: herald.fetch, apiKey: API_KEY, maxRetries: 0 });
    const one = await client.files.create({ file: await toFile(Buffer.from(handbook), 'handbook.md'), purpose: 'assistants' });
    const two = await client.files.create({ file: await toFile(Buffer.from(handbook), 'copy.md'), purpose: 'assistants' });
    const store = await client.vectorStores.create({ name: 'Handbook', file_ids: [one.id, two.id] });
    await eventually(() => fake.requests.length >= 1, 60_000);
    const statusOf = async (id: string) => (await client.vectorStores.files.retrieve(id, { vector_store_id: store.id })).status;
    await eventually(async () => herald.logs.some((l) => l.msg === JOINED) || (await statusOf(two.id)) !== 'in_progress' || (await statusOf(one.id)) !== 'in_progress', 60_000);
    // neither is completed before its document is whole
    expect([await statusOf(one.id), await statusOf(two.id)]).toEqual(['in_progress', 'in_progress']);
    release();
    await eventually(async () => (await client.vectorStores.retrieve(store.id)).file_counts.completed === 2, 60_000);
    const texts = async (id: string) => (await client.vectorStores.files.content(id, { vector_store_id: store.id })).data.map((c) => c.text);
    const { documents, chunks } = await stored(herald);
    expect(chunks).toBeGreaterThan(1);
    expect(await texts(one.id)).toHaveLength(chunks);
    expect(await texts(two.id)).toEqual(await texts(one.id));
    expect(documents).toBe(1);
  });

  it('two heralds on one PostgreSQL schema: the second replica waits for the first one\'s transaction, both answer the whole document', async () => {
    const held = await startHeldEmbeddings();
    const { release } = held;
    fake = held.fake;
    const schema = uniqueSchema('herald_dup_upload');
    const config = configWith(fake, { postgres: { url: PG_URL, schema, poolSize: 4 } });
    const replicas: TestApp[] = [];
    const probe = new pg.Client({ connectionString: PG_URL });
    await probe.connect();
    try {
      replicas.push(await testApp(config), await testApp(config));
      const first = uploadTo(replicas[0]!, 'handbook.md');
      await eventually(() => fake!.requests.length >= 1, 60_000);
      let answered = false;
      const second = uploadTo(replicas[1]!, 'copy.md').finally(() => (answered = true));
      // the second replica's document insert waits on the unique (agent_id, sha256) the first one holds
      const waiting = async () =>
        (await probe.query("SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO knowledge_documents%'")).rowCount! > 0;
      await eventually(async () => answered || (await waiting()), 60_000);
      expect(answered).toBe(false);
      release();
      const [a, b] = await Promise.all([first, second]);
      expect([a.status, b.status]).toEqual([201, 200]);
      expect(b.body).toEqual(a.body);
      const { documents, chunks } = await stored(replicas[1]!);
      expect(chunks).toBeGreaterThan(1);
      expect(a.body.chunk_count).toBe(chunks);
      expect(documents).toBe(1);
    } finally {
      await probe.end();
      await fake.close();
      fake = undefined;
      for (const replica of replicas) await replica.stop();
      await dropSchema(schema);
    }
  });
});
