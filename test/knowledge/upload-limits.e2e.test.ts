import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, eventually, GATEWAY_TOKEN } from '../helpers/start-herald.js';
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

/** a DOCX of a few sentences, as a person writes one */
async function ordinaryDocx(): Promise<Uint8Array> {
  const zip = new JSZip();
  zip.file('[Content_Types].xml', '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>');
  const paragraphs = ['Holidays.', 'Every employee gets twenty-eight vacation days per year.', `Written ${Math.random()}.`];
  const body = paragraphs.map((p) => `<w:p><w:pPr><w:pStyle w:val="Normal"/></w:pPr><w:r><w:rPr><w:b/></w:rPr><w:t>${p}</w:t></w:r></w:p>`).join('');
  zip.file('word/document.xml', `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`);
  return zip.generateAsync({ type: 'uint8array', compression: 'DEFLATE' });
}

/** herald_knowledge_parse_workers from /metrics: the parse worker threads alive */
async function parseWorkers(herald: TestApp): Promise<number> {
  const text = await (await herald.request('/metrics', { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).text();
  return Number(/^herald_knowledge_parse_workers (\d+)$/m.exec(text)?.[1]);
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

describe('document parsing within platform.knowledge.workerMemoryMb', () => {
  let herald: TestApp;
  beforeAll(async () => {
    herald = await testApp({ agents: { list: [{ id: 'kb' }] } });
  });
  afterAll(async () => herald?.stop());

  it('refuses a 30 KB DOCX inflating to 10 MB (under maxInflatedEntryBytes) before parsing, naming the memory limit; an ordinary DOCX uploads after it', async () => {
    const bomb = await docxBomb(300_000);
    expect(bomb.byteLength).toBeLessThan(45_000);
    const { status, body } = await upload(herald, 'bomb.docx', bomb);
    expect(status).toBe(422);
    expect(body.error).toMatchObject({ param: 'file', code: 'document_unprocessable', type: 'invalid_request_error' });
    expect(body.error.message).toMatch(/^Reading the document needs more than platform\.knowledge\.workerMemoryMb \(256 MB\): its 900003 XML elements take at least 660 MB to parse\.$/);
    const fine = await upload(herald, 'handbook.docx', await ordinaryDocx());
    expect(fine.status).toBe(201);
    expect(fine.body.chunk_count).toBe(1);
  }, 60_000);

  it('refuses an HTML page of a million elements before parsing, naming the memory limit', async () => {
    const html = `<!doctype html><html><body>${'<p>a</p>'.repeat(1_200_000)}</body></html>`;
    const { status, body } = await upload(herald, 'page.html', html);
    expect(status).toBe(422);
    expect(body.error).toMatchObject({ param: 'file', code: 'document_unprocessable' });
    expect(body.error.message).toBe('Reading the document needs more than platform.knowledge.workerMemoryMb (256 MB): its 1200002 HTML elements take at least 293 MB to parse.');
    expect((await upload(herald, 'small.html', '<!doctype html><html><body><p>The canteen opens at noon.</p></body></html>')).status).toBe(201);
  }, 60_000);

  it('keeps a worker whose heap after its parse is under an eighth of workerMemoryMb for the next upload, and ends one past it', async () => {
    // 256 MB (the default): after an ordinary parse and its collection a worker keeps 16-26 MB, under its 32 MB mark
    expect((await upload(herald, 'handbook.docx', await ordinaryDocx())).status).toBe(201);
    expect(await parseWorkers(herald)).toBe(1);
    // 64 MB: an 8 MB mark, past which every worker is once its parsers are loaded; it ends well before its 30 s idle time
    const tight = await testApp({ agents: { list: [{ id: 'kb' }] }, platform: { knowledge: { workerMemoryMb: 64 } } });
    try {
      expect((await upload(tight, 'handbook.docx', await ordinaryDocx())).status).toBe(201);
      await eventually(async () => (await parseWorkers(tight)) === 0, 20_000);
    } finally {
      await tight.stop();
    }
  }, 60_000);

  it('a DOCX that reaches the worker heap limit is 422 naming it; herald answers meanwhile and the worker is replaced', async () => {
    // 54,000 XML elements: under the estimate for 64 MB, while mammoth needs ~70 MB for them
    const small = await testApp({ agents: { list: [{ id: 'kb' }] }, platform: { knowledge: { workerMemoryMb: 64 } } });
    expect(await parseWorkers(small)).toBe(0);
    let settled = false;
    const pending = upload(small, 'heavy.docx', await docxBomb(18_000)).finally(() => (settled = true));
    // while the worker is reading it, the gateway answers: /metrics sees the worker, /healthz is up
    await eventually(async () => (await parseWorkers(small)) === 1 || settled, 30_000);
    expect(settled).toBe(false);
    expect((await small.request('/healthz')).status).toBe(200);
    const { status, body } = await pending;
    expect(status).toBe(422);
    expect(body.error).toMatchObject({ param: 'file', code: 'document_unprocessable' });
    expect(body.error.message).toBe('Reading the document needs more than platform.knowledge.workerMemoryMb (64 MB).');
    const fine = await upload(small, 'handbook.docx', await ordinaryDocx());
    expect(fine.status).toBe(201);
    await healthy(small);
  }, 60_000);
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
