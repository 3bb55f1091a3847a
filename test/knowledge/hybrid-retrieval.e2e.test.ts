import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAIEmbedder } from '../../src/models/embeddings/embeddings-client.js';
import { KnowledgeIndex } from '../../src/knowledge/knowledge-index.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { EMBEDDINGS_KEY, startFakeEmbeddings } from '../helpers/fake-embeddings.js';
import type { FakeServer } from '../helpers/fake-server.js';
import { API_KEY, tempDir } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';

const EVAL = path.resolve('bench/retrieval-eval/en');
const docs = fs.readdirSync(EVAL).filter((f) => f.endsWith('.md'));
const doc = (filename: string, i: number) => ({ agentId: 'a', filename, bytes: 1, mimeType: 'text/markdown', sha256: `${i + 1}`.padStart(64, '0'), metadata: null });

let fake: FakeServer;
beforeAll(async () => {
  fake = await startFakeEmbeddings();
});
afterAll(() => fake?.close());

describe('hybrid retrieval through an OpenAI-compatible embeddings endpoint', () => {
  const endpoint = () => ({ ref: 'fake/embed-1', baseUrl: `${fake.url}/v1`, model: 'embed-1', apiKey: EMBEDDINGS_KEY });
  const question = 'Can you pick up a sofa I want to send back?';

  it('finds by meaning what full text misses, fusing both rankings; embeds in batches', async () => {
    const store = openSqliteStore(path.join(tempDir(), 'kb.db'));
    const warnings: string[] = [];
    const hybrid = new KnowledgeIndex(store.knowledge, { embedder: openAIEmbedder(endpoint()), logger: { warn: (_d, m) => warnings.push(m) } });
    for (const [i, f] of docs.entries()) await hybrid.add(doc(f, i), [fs.readFileSync(path.join(EVAL, f), 'utf8')]);
    const textOnly = new KnowledgeIndex(store.knowledge);
    expect((await textOnly.search('a', question, 4)).map((p) => p.filename)).not.toContain('returns-process.md');
    const found = await hybrid.search('a', question, 4);
    expect(found.map((p) => p.filename)).toContain('returns-process.md');
    expect(found.every((p) => p.score > 0)).toBe(true);
    // one request per document, then the question: the chunks went as documented, with the key
    const sent = fake.requests.map((r) => r.json as { model: string; input: string[]; encoding_format: string });
    expect(sent.at(-1)).toEqual({ model: 'embed-1', input: [question], encoding_format: 'float' });
    expect(sent[0]!.input[0]).toContain(fs.readFileSync(path.join(EVAL, docs[0]!), 'utf8').split('\n')[0]);

    // 300 chunks: three requests of at most 128 inputs
    fake.requests.length = 0;
    await hybrid.add(doc('many.txt', 99), Array.from({ length: 300 }, (_, i) => `Line ${i} of many.`));
    expect(fake.requests.map((r) => (r.json as { input: string[] }).input.length)).toEqual([128, 128, 44]);
    expect(warnings).toEqual([]);
    await store.close();
  });

  it('refuses an upload the provider cannot embed, storing nothing; at search it falls back to full text with a log line', async () => {
    const store = openSqliteStore(path.join(tempDir(), 'kb.db'));
    const warnings: { details: object; message: string }[] = [];
    const logger = { warn: (details: object, message: string) => warnings.push({ details, message }) };
    const wrongKey = new KnowledgeIndex(store.knowledge, { embedder: openAIEmbedder({ ...endpoint(), apiKey: 'sk-wrong' }), logger });
    await expect(wrongKey.add(doc('refund-policy.md', 0), ['Refunds take five days.'])).rejects.toMatchObject({
      code: 'HERALD_EMBEDDINGS_FAILED',
      message: 'embeddings from fake/embed-1 failed: HTTP 401: Incorrect API key provided.',
    });
    expect(await store.knowledge.list('a')).toEqual([]);
    // stored while the provider worked, searched while it is down
    await new KnowledgeIndex(store.knowledge, { embedder: openAIEmbedder(endpoint()) }).add(doc('refund-policy.md', 0), ['Refunds take five days.']);
    const down = new KnowledgeIndex(store.knowledge, { embedder: openAIEmbedder({ ...endpoint(), baseUrl: 'http://127.0.0.1:1/v1' }), logger });
    expect((await down.search('a', 'How long do refunds take?'))[0]).toMatchObject({ filename: 'refund-policy.md' });
    expect(warnings).toEqual([
      { message: 'knowledge search: embeddings failed, full-text ranking only', details: { agentId: 'a', code: 'HERALD_EMBEDDINGS_FAILED', reason: 'embeddings from fake/embed-1 failed: the provider could not be reached' } },
    ]);
    await store.close();
  });

  it('is configured by platform.knowledge.embeddings: an upload is embedded, a failing provider answers 502', async () => {
    const herald = await testApp({
      models: { providers: { fake: { api: 'openai', baseUrl: `${fake.url}/v1`, apiKey: EMBEDDINGS_KEY } } },
      platform: { knowledge: { embeddings: { model: 'fake/embed-1' } } },
    });
    try {
      const upload = (name: string, text: string) => {
        const form = new FormData();
        form.append('agent_id', 'main');
        form.append('file', new Blob([text]), name);
        return herald.request(`/v1/knowledge/upload`, { method: 'POST', headers: { authorization: `Bearer ${API_KEY}` }, body: form });
      };
      fake.requests.length = 0;
      const text = fs.readFileSync(path.join(EVAL, 'returns-process.md'), 'utf8');
      expect((await upload('returns-process.md', text)).status).toBe(201);
      expect((fake.requests[0]!.json as { input: string[] }).input).toHaveLength(1);
      const chat = await herald.request(`/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'main', messages: [{ role: 'user', content: question }] }),
      });
      expect(((await chat.json()) as { citations: { filename: string }[] }).citations.map((c) => c.filename)).toEqual(['returns-process.md']);

      fake.handle(() => ({ status: 500, body: { error: { message: 'The server had an error while processing your request.', type: 'server_error', param: null, code: null } } }));
      const refused = await upload('other.md', 'Another document.');
      expect(refused.status).toBe(502);
      expect(await refused.json()).toMatchObject({ error: { code: 'upstream_error', message: expect.stringContaining('embeddings from fake/embed-1 failed: HTTP 500') } });
    } finally {
      await herald.stop();
    }
  });
});
