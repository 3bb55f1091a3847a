import JSZip from 'jszip';
import OpenAI from 'openai';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';

let herald: TestApp;
const auth = { authorization: `Bearer ${API_KEY}` };
const MAX = 200_000;

async function buildPdf(lines: string[]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage();
  lines.forEach((line, i) => page.drawText(line, { x: 40, y: 760 - i * 18, size: 12, font }));
  return doc.save();
}

async function buildDocx(paragraphs: string[]): Promise<Uint8Array> {
  const zip = new JSZip();
  zip.file(
    '[Content_Types].xml',
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
  );
  zip.file(
    '_rels/.rels',
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
  );
  const body = paragraphs.map((p) => `<w:p><w:r><w:t>${p}</w:t></w:r></w:p>`).join('');
  zip.file(
    'word/document.xml',
    `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`,
  );
  return zip.generateAsync({ type: 'uint8array' });
}

async function upload(agentId: string, filename: string, content: Uint8Array | string, extra: Record<string, string> = {}) {
  const form = new FormData();
  form.append('agent_id', agentId);
  for (const [k, v] of Object.entries(extra)) form.append(k, v);
  form.append('file', new Blob([content]), filename);
  const res = await herald.request(`/v1/knowledge/upload`, { method: 'POST', headers: auth, body: form });
  return { status: res.status, body: (await res.json()) as any, headers: res.headers };
}

async function ask(agent: string, question: string) {
  const client = new OpenAI({ baseURL: `${herald.origin}/v1`, fetch: herald.fetch, apiKey: API_KEY, maxRetries: 0 });
  const completion = await client.chat.completions.create({ model: agent, messages: [{ role: 'user', content: question }] });
  return completion as unknown as { choices: { message: { content: string } }[]; citations: { filename: string; content: string; score: number }[] };
}

beforeAll(async () => {
  herald = await testApp({ agents: { list: [{ id: 'kb' }, { id: 'types' }, { id: 'corpus' }, { id: 'other' }] }, platform: { maxUploadBytes: MAX } },
  );
});
afterAll(async () => herald?.stop());

describe('POST /v1/knowledge/upload', () => {
  it('reads each supported type by its content and answers from it', async () => {
    const cases: [string, Uint8Array | string, string, string][] = [
      ['notes.txt', 'The warehouse in Lyon opens at 7am on weekdays.', 'text/plain', 'When does the Lyon warehouse open?'],
      ['guide.md', '# Parking\n\nVisitors park on level **B2** of the garage.', 'text/markdown', 'Where do visitors park?'],
      ['page.html', '<!doctype html><html><head><title>x</title><script>var secret=1</script></head><body><h1>Wifi</h1><p>The guest wifi password is <b>tulip-42</b>.</p></body></html>', 'text/html', 'What is the guest wifi password?'],
      ['prices.csv', 'product,price,currency\nkayak,499,EUR\nparaglider,2100,EUR\n', 'text/csv', 'What is the price of the kayak?'],
      ['team.json', JSON.stringify({ team: [{ name: 'Ines', role: 'payroll manager' }] }), 'application/json', 'Who is the payroll manager?'],
      ['policy.pdf', await buildPdf(['Travel policy.', 'Employees fly economy class on flights under six hours.']), 'application/pdf', 'Which class do employees fly?'],
      ['handbook.docx', await buildDocx(['Holidays.', 'Every employee gets twenty-eight vacation days per year.']), 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'How many vacation days per year?'],
    ];
    for (const [filename, content, mime, question] of cases) {
      const { status, body } = await upload('types', filename, content);
      expect(status, filename).toBe(201);
      expect(body).toMatchObject({ object: 'knowledge.document', agent_id: 'types', filename, mime_type: mime, status: 'ready' });
      expect(body.id).toMatch(/^doc_/);
      expect(body.sha256).toMatch(/^[a-f0-9]{64}$/);
      expect(body.chunk_count).toBeGreaterThan(0);
      expect(body.bytes).toBe(typeof content === 'string' ? Buffer.byteLength(content) : content.byteLength);
      const answer = await ask('types', question);
      expect(answer.citations[0]?.filename, question).toBe(filename);
    }
    const html = await ask('types', 'guest wifi password');
    expect(html.citations[0]!.content).toContain('tulip-42');
    expect(html.citations[0]!.content).not.toContain('var secret');
    const csv = await ask('types', 'kayak price');
    expect(csv.citations[0]!.content).toContain('product: kayak; price: 499');
    expect(csv.choices[0]!.message.content).toContain('price: 499');
  });

  it('types by content, not by name: a PNG named .txt and a fake .pdf are 415', async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    const asText = await upload('kb', 'picture.txt', png);
    expect(asText.status).toBe(415);
    expect(asText.body.error).toMatchObject({ code: 'unsupported_file_type', type: 'invalid_request_error', param: 'file' });
    const fakePdf = await upload('kb', 'report.pdf', 'just words');
    expect(fakePdf.status).toBe(415);
    const zip = new JSZip();
    zip.file('a.txt', 'hello');
    const plainZip = await upload('kb', 'archive.docx', await zip.generateAsync({ type: 'uint8array' }));
    expect(plainZip.status).toBe(415);
    // and the other way round: a table named .txt, JSON and HTML with no extension are read as what they are
    const table = await upload('kb', 'export.txt', 'sku,stock,warehouse\nA-17,40,Lyon\nB-22,0,Porto\n');
    expect(table.body.mime_type).toBe('text/csv');
    expect((await upload('kb', 'data', '{"ceo":"Maren"}')).body.mime_type).toBe('application/json');
    expect((await upload('kb', 'page', '<html><body><p>Hi</p></body></html>')).body.mime_type).toBe('text/html');
  });

  it('returns the existing document for the same content and agent (200), a new one for another agent', async () => {
    const first = await upload('kb', 'faq.txt', 'Our office dog is called Biscuit.');
    expect(first.status).toBe(201);
    const again = await upload('kb', 'faq-copy.txt', 'Our office dog is called Biscuit.');
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect(again.body.filename).toBe('faq.txt');
    const other = await upload('other', 'faq.txt', 'Our office dog is called Biscuit.');
    expect(other.status).toBe(201);
    expect(other.body.id).not.toBe(first.body.id);
  });

  it('takes new metadata for a file already there; refuses new chunking, naming the document to delete first', async () => {
    const text = 'Our office cat is called Pixel. '.repeat(40);
    const first = await upload('kb', 'cat.txt', text, { metadata: '{"rev":1}' });
    expect(first.status).toBe(201);
    const relabelled = await upload('kb', 'cat.txt', text, { metadata: '{"rev":2}' });
    expect(relabelled.status).toBe(200);
    expect(relabelled.body).toMatchObject({ id: first.body.id, metadata: { rev: 2 }, chunk_count: first.body.chunk_count });
    const listed = await herald.request(`/v1/knowledge/${first.body.id}`, { headers: auth });
    expect(((await listed.json()) as any).metadata).toEqual({ rev: 2 });
    // no metadata field: the document keeps its own
    expect((await upload('kb', 'cat.txt', text)).body.metadata).toEqual({ rev: 2 });
    const rechunked = await upload('kb', 'cat.txt', text, { chunk_size: '200' });
    expect(rechunked.status).toBe(409);
    expect(rechunked.body.error).toMatchObject({ code: 'document_exists', param: 'chunk_size' });
    expect(rechunked.body.error.message).toContain(`delete ${first.body.id} first`);
    expect((await herald.request(`/v1/knowledge/${first.body.id}`, { method: 'DELETE', headers: auth })).status).toBe(200);
    const again = await upload('kb', 'cat.txt', text, { chunk_size: '200' });
    expect(again.status).toBe(201);
    expect(again.body.chunk_count).toBeGreaterThan(first.body.chunk_count);
  });

  it('validates agent_id, chunking and metadata', async () => {
    expect((await upload('nobody', 'a.txt', 'hello there')).body.error).toMatchObject({ code: 'agent_not_found', param: 'agent_id' });
    const overlap = await upload('kb', 'b.txt', 'hello there', { chunk_size: '200', chunk_overlap: '150' });
    expect(overlap.status).toBe(400);
    expect(overlap.body.error.param).toBe('chunk_overlap');
    const meta = await upload('kb', 'c.txt', 'hello there', { metadata: 'not json' });
    expect(meta.body.error.param).toBe('metadata');
    const ok = await upload('kb', 'd.txt', 'word '.repeat(400), { chunk_size: '200', chunk_overlap: '50', metadata: '{"source":"wiki"}' });
    expect(ok.status).toBe(201);
    expect(ok.body.chunk_count).toBeGreaterThan(8);
    expect(ok.body.metadata).toEqual({ source: 'wiki' });
    const noFile = await herald.request(`/v1/knowledge/upload`, { method: 'POST', headers: auth, body: (() => { const f = new FormData(); f.append('agent_id', 'kb'); return f; })() });
    expect(noFile.status).toBe(400);
    expect(((await noFile.json()) as any).error.param).toBe('file');
  });

  it('refuses a declared oversize body with 413 file_too_large', async () => {
    const big = await upload('kb', 'big.txt', 'x'.repeat(MAX + 1));
    expect(big.status).toBe(413);
    expect(big.body.error).toMatchObject({ code: 'file_too_large', param: 'file' });
  });

  it('stops reading a chunked upload at the limit (413 while streaming)', async () => {
    const boundary = 'herald-test-boundary';
    let sent = 0;
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="agent_id"\r\n\r\nkb\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="endless.txt"\r\nContent-Type: text/plain\r\n\r\n`;
    const piece = new TextEncoder().encode('y'.repeat(16 * 1024));
    // an upload that would never end: only the server's counting can stop it
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(head));
      },
      pull(controller) {
        sent += piece.byteLength;
        controller.enqueue(piece);
      },
    });
    const res = await herald.request(`/v1/knowledge/upload`, {
      method: 'POST',
      headers: { ...auth, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).error.code).toBe('file_too_large');
    // the body never ends, so an answer at all proves the server stopped reading at the limit
    expect(sent).toBeGreaterThan(MAX);
  });

  it('lists and deletes documents; deleted knowledge is no longer cited', async () => {
    const doc = await upload('kb', 'volcano.txt', 'The company retreat takes place near the Etna volcano.');
    const list = (await (await herald.request(`/v1/knowledge?agent_id=kb`, { headers: auth })).json()) as any;
    expect(list.object).toBe('list');
    expect(list.data.map((d: { id: string }) => d.id)).toContain(doc.body.id);
    expect(list.data.every((d: { agent_id: string }) => d.agent_id === 'kb')).toBe(true);
    expect((await ask('kb', 'Where is the retreat?')).citations[0]!.filename).toBe('volcano.txt');

    const del = await herald.request(`/v1/knowledge/${doc.body.id}`, { method: 'DELETE', headers: auth });
    expect(await del.json()).toEqual({ id: doc.body.id, object: 'knowledge.document.deleted', deleted: true });
    expect((await herald.request(`/v1/knowledge/${doc.body.id}`, { method: 'DELETE', headers: auth })).status).toBe(404);
    const after = await ask('kb', 'Where is the retreat?');
    expect(after.citations.map((c) => c.filename)).not.toContain('volcano.txt');
  });

  it('ranks the document that answers the question first on a small corpus', async () => {
    const corpus: Record<string, string> = {
      'expenses.md': 'Expense reports are due on the fifth working day of each month. Attach every receipt as a PDF. Meals are reimbursed up to 25 euros per day.',
      'security.md': 'Laptops must use full-disk encryption. Report a lost badge to security within one hour. Passwords rotate every ninety days.',
      'onboarding.md': 'New hires receive their laptop on the first day. The buddy programme pairs each new hire with a colleague for a month.',
      'holidays.md': 'Public holidays follow the calendar of the office country. Vacation requests need two weeks of notice and manager approval.',
      'parking.md': 'The car park closes at 22:00. Electric vehicles charge for free on level two. Bicycles go in the basement room.',
    };
    for (const [name, text] of Object.entries(corpus)) expect((await upload('corpus', name, text)).status).toBe(201);
    const expectations: [string, string][] = [
      ['How much can I spend on meals?', 'expenses.md'],
      ['What do I do if I lose my badge?', 'security.md'],
      ['When do new hires get a laptop?', 'onboarding.md'],
      ['How much notice for a vacation request?', 'holidays.md'],
      ['Where can I charge my electric car?', 'parking.md'],
      ['When are expense reports due?', 'expenses.md'],
    ];
    for (const [question, expected] of expectations) {
      const answer = await ask('corpus', question);
      expect(answer.citations[0]?.filename, question).toBe(expected);
    }
  });

  it('keeps documents across a restart', async () => {
    herald = await herald.restart();
    const list = (await (await herald.request(`/v1/knowledge?agent_id=corpus`, { headers: auth })).json()) as any;
    expect(list.data).toHaveLength(5);
    expect((await ask('corpus', 'bicycles basement')).citations[0]!.filename).toBe('parking.md');
  });
});
