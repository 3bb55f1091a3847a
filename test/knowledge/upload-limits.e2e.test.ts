import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, baseConfig } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';

const auth = { authorization: `Bearer ${API_KEY}` };

/** a DOCX whose word/document.xml holds `paragraphs` tiny paragraphs (DEFLATE level 9): ~37 bytes each once inflated */
async function docxBomb(paragraphs: number): Promise<Uint8Array> {
  const zip = new JSZip();
  zip.file('[Content_Types].xml', '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>');
  const xml = `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${'<w:p><w:r><w:t>a</w:t></w:r></w:p>'.repeat(paragraphs)}</w:body></w:document>`;
  zip.file('word/document.xml', xml);
  return zip.generateAsync({ type: 'uint8array', compression: 'DEFLATE', compressionOptions: { level: 9 } });
}

/** ~`bytes` of JSON whose objects nest one inside the other, a leaf at every level: each leaf's line repeats the whole key path */
function deeplyKeyedJson(bytes: number): string {
  const levels = Math.floor(bytes / 32);
  return `${'{"leaf":"x","nested_key_0123":'.repeat(levels)}1${'}'.repeat(levels)}`;
}

async function upload(herald: TestApp, filename: string, content: Uint8Array | string, extra: Record<string, string> = {}) {
  const form = new FormData();
  form.append('agent_id', 'kb');
  for (const [k, v] of Object.entries(extra)) form.append(k, v);
  form.append('file', new Blob([content]), filename);
  const res = await herald.request(`/v1/knowledge/upload`, { method: 'POST', headers: auth, body: form });
  return { status: res.status, body: (await res.json()) as any };
}

async function healthy(herald: TestApp) {
  expect((await herald.request(`/healthz`)).status).toBe(200);
  const ok = await upload(herald, `ok-${Math.random()}.txt`, `The canteen opens at noon. ${Math.random()}`);
  expect(ok.status).toBe(201);
}

describe('knowledge uploads within the platform.knowledge limits (defaults)', () => {
  let herald: TestApp;
  beforeAll(async () => {
    herald = await testApp({ agents: { list: [{ id: 'kb' }] } });
  });
  afterAll(async () => herald?.stop());

  it('refuses a DOCX bomb (word/document.xml inflating to ~50 MB) with 413 naming the limit, and stays healthy', async () => {
    const bomb = await docxBomb(1_350_000);
    expect(bomb.byteLength).toBeLessThan(1_000_000);
    const { status, body } = await upload(herald, 'bomb.docx', bomb);
    expect(status).toBe(413);
    expect(body.error).toMatchObject({ param: 'file', code: 'document_too_large', type: 'invalid_request_error' });
    expect(body.error.message).toContain('platform.knowledge.maxInflatedEntryBytes');
    await healthy(herald);
    expect(herald.rawLogs()).not.toContain('unhandled error');
  });

  it('refuses a 1 MB deeply keyed JSON with 413 naming the text limit, and stays healthy', async () => {
    const json = deeplyKeyedJson(1_000_000);
    expect(json.length).toBeGreaterThan(900_000);
    const { status, body } = await upload(herald, 'deep.json', json);
    expect(status).toBe(413);
    expect(body.error.message).toContain('platform.knowledge.maxTextChars');
    await healthy(herald);
  });

  it('refuses metadata nested too deep or too large with 400 naming the field', async () => {
    const deep = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
    for (const levels of [10_000, 2_000]) {
      const nested = await upload(herald, 'meta.txt', 'Deep metadata test.', { metadata: deep(levels) });
      expect(nested.status).toBe(400);
      expect(nested.body.error).toMatchObject({ param: 'metadata' });
    }
    expect((await upload(herald, 'meta.txt', 'Deep metadata test.', { metadata: deep(2_000) })).body.error.message).toContain('levels deep');
    const large = await upload(herald, 'meta.txt', 'Large metadata test.', { metadata: JSON.stringify({ note: 'x'.repeat(20_000) }) });
    expect(large.status).toBe(400);
    expect(large.body.error).toMatchObject({ param: 'metadata' });
    const fine = await upload(herald, 'meta.txt', 'Fine metadata test.', { metadata: JSON.stringify({ a: { b: { c: 1 } } }) });
    expect(fine.status).toBe(201);
    expect(fine.body.metadata).toEqual({ a: { b: { c: 1 } } });
    await healthy(herald);
  });
});

describe('knowledge uploads past configured limits', () => {
  let herald: TestApp;
  afterAll(async () => herald?.stop());

  it('answers each limit with its own status and name', async () => {
    herald = await testApp({ agents: { list: [{ id: 'kb' }] }, platform: { knowledge: { maxChunks: 3, maxTextChars: 20_000, maxInflatedEntryBytes: 100_000 } } },
    );
    const chunks = await upload(herald, 'many.txt', 'A sentence about chunks. '.repeat(400));
    expect(chunks.status).toBe(413);
    expect(chunks.body.error.message).toContain('platform.knowledge.maxChunks (3)');
    const text = await upload(herald, 'long.csv', `name,value\n${Array.from({ length: 2000 }, (_, i) => `row${i},${i}`).join('\n')}\n`, { chunk_size: '20000' });
    expect(text.status).toBe(413);
    expect(text.body.error.message).toContain('platform.knowledge.maxTextChars (20000 characters)');
    const entry = await upload(herald, 'wide.docx', await docxBomb(5_000));
    expect(entry.status).toBe(413);
    expect(entry.body.error.message).toContain('platform.knowledge.maxInflatedEntryBytes (100000 bytes)');
    await healthy(herald);
    await herald.stop();

    // a 1 ms limit is over before any worker has started: deterministic, whatever the machine
    herald = await testApp({ agents: { list: [{ id: 'kb' }] }, platform: { knowledge: { parseTimeoutMs: 1 } } });
    const slow = await upload(herald, 'slow.txt', 'Any document at all.');
    expect(slow.status).toBe(422);
    expect(slow.body.error).toMatchObject({ param: 'file', code: 'document_unprocessable' });
    expect(slow.body.error.message).toContain('platform.knowledge.parseTimeoutMs (1 ms)');
    expect((await herald.request(`/healthz`)).status).toBe(200);
  });
});
