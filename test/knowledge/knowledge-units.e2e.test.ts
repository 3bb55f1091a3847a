import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { chunkText } from '../../src/knowledge/parsing/chunk-text.js';
import { csvRows } from '../../src/knowledge/parsing/csv-rows.js';
import { detectType } from '../../src/knowledge/parsing/detect-type.js';
import { extractiveAnswer, NOTHING_KNOWN } from '../../src/knowledge/searching/extractive-answer.js';
import { KnowledgeIndex } from '../../src/knowledge/knowledge-index.js';
import { porterStem } from '../../src/knowledge/porter-stem.js';
import { pickPassages, scoreCandidates } from '../../src/knowledge/searching/rank-passages.js';
import { queryTerms } from '../../src/knowledge/searching/search-query.js';
import { indexTextOf } from '../../src/knowledge/text-terms.js';
import { plainText } from '../../src/knowledge/searching/plain-text.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';

const bytes = (s: string) => new TextEncoder().encode(s);

describe('chunkText', () => {
  it('cuts at sentence boundaries within the size, overlapping by at most the overlap', () => {
    const text = Array.from({ length: 60 }, (_, i) => `Sentence number ${i} says something useful.`).join(' ');
    const chunks = chunkText(text, { size: 200, overlap: 50 });
    expect(chunks.length).toBeGreaterThan(10);
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(200);
    for (const c of chunks.slice(0, -1)) expect(c.endsWith('.')).toBe(true);
    // every sentence survives somewhere
    for (let i = 0; i < 60; i++) expect(chunks.some((c) => c.includes(`Sentence number ${i} says`))).toBe(true);
  });

  it('gives no chunk for blank text and one for short text', () => {
    expect(chunkText('  \n\n ', { size: 100, overlap: 0 })).toEqual([]);
    expect(chunkText('short', { size: 100, overlap: 10 })).toEqual(['short']);
  });
});

describe('detectType', () => {
  it('reads the type from content, using the name only among texts', () => {
    expect(detectType(bytes('%PDF-1.7 ...'), 'x.bin')).toMatchObject({ ok: true, type: 'pdf' });
    expect(detectType(bytes('{"a":1}'), 'data.txt')).toMatchObject({ ok: true, type: 'json' });
    expect(detectType(bytes('<!DOCTYPE html><p>x</p>'), 'page')).toMatchObject({ ok: true, type: 'html' });
    expect(detectType(bytes('a,b\n1,2'), 'table.csv')).toMatchObject({ ok: true, type: 'csv' });
    expect(detectType(bytes('# Title\n\ntext'), 'notes')).toMatchObject({ ok: true, type: 'md' });
    expect(detectType(bytes('plain words'), 'notes.txt')).toMatchObject({ ok: true, type: 'txt' });
    // a table is a table whatever its name; prose with commas is not
    expect(detectType(bytes('name,age,city\nBob,32,Paris\nAnn,41,Rome\n'), 'people.txt')).toMatchObject({ ok: true, type: 'csv' });
    expect(detectType(bytes('id\tqty\n1\t4\n2\t9'), 'export')).toMatchObject({ ok: true, type: 'csv' });
    expect(detectType(bytes('Hello, world.\nYes, really.\nNo, never.'), 'notes.txt')).toMatchObject({ ok: true, type: 'txt' });
    expect(detectType(bytes('a,b\n1,2\n3,4'), 'table.md')).toMatchObject({ ok: true, type: 'md' });
    expect(detectType(bytes('{"a":1,"b":2}\n{"a":3,"b":4}\n{"a":5,"b":6}'), 'events')).toMatchObject({ ok: true, type: 'txt' });
    expect(detectType(new Uint8Array([0xff, 0xfe, 0x00, 0x41]), 'a.txt').ok).toBe(false);
    expect(detectType(bytes('words'), 'fake.docx').ok).toBe(false);
  });
});

describe('csvRows', () => {
  it('handles quotes, doubled quotes and CRLF', () => {
    expect(csvRows('a,b\r\n"x, y","say ""hi"""\r\n')).toEqual([
      ['a', 'b'],
      ['x, y', 'say "hi"'],
    ]);
  });
});

describe('search query', () => {
  it('keeps the meaningful words of a question, as the index keeps them (stemmed, CJK segmented)', () => {
    expect(queryTerms('What is the NEAR(refund) policy* for "VIP" customers?')).toEqual(['near', 'refund', 'polici', 'vip', 'custom']);
    expect(queryTerms('退款需要多长时间？')).toEqual(['退款']);
    expect(queryTerms('返金には何日かかりますか')).toContain('返金');
    expect(queryTerms('Café crème, naïve résumé')).toEqual(['cafe', 'creme', 'naiv', 'resum']);
  });
});

describe('porterStem', () => {
  it("stems as Porter's algorithm does", () => {
    const cases = { caresses: 'caress', ponies: 'poni', agreed: 'agre', hopping: 'hop', relational: 'relat', generalizations: 'gener', refunds: 'refund', walking: 'walk', happy: 'happi', adjustment: 'adjust' };
    for (const [word, stem] of Object.entries(cases)) expect(porterStem(word)).toBe(stem);
  });
});

describe('ranking candidates', () => {
  const candidate = (documentId: string, content: string) => ({ documentId, filename: `${documentId}.txt`, chunkId: `${documentId}-${content.length}-${content.slice(0, 8)}`, content, terms: indexTextOf(content) });

  it('weighs a rare term above one found everywhere, still counts the common one, and drops chunks matching nothing', () => {
    const terms = queryTerms('long refunds take');
    const scored = scoreCandidates(terms, {
      total: 1000,
      // long, refund, take
      frequencies: [20, 900, 30],
      candidates: [candidate('a', 'It takes long to load.'), candidate('b', 'Refunds take five days.'), candidate('c', 'Nothing of the sort.')],
    });
    expect(scored.map((s) => s.documentId)).toEqual(['a', 'b']);
    const both = scoreCandidates(terms, { total: 1000, frequencies: [20, 900, 30], candidates: [candidate('a', 'It takes time.'), candidate('b', 'Refunds take time.')] });
    expect(both.map((s) => s.documentId)).toEqual(['b', 'a']);
    expect(both.every((s) => s.score > 0)).toBe(true);
  });

  it('lets no document crowd out the others, and keeps one of duplicate passages', () => {
    const terms = ['refund'];
    const scored = scoreCandidates(terms, {
      total: 100,
      frequencies: [10],
      candidates: [
        candidate('big', 'Refund refund refund rules, part one.'),
        candidate('big', 'Refund refund refund rules, part two.'),
        candidate('big', 'Refund refund refund rules, part three.'),
        candidate('faq', 'A refund takes five business days.'),
        candidate('copy', 'A refund takes five business days!'),
      ],
    });
    const picked = pickPassages(scored, 4);
    expect(picked).toHaveLength(4);
    // the large document's chunks score best, yet the second passage comes from another document
    expect(picked[0]!.documentId).toBe('big');
    expect(picked[1]!.documentId).toBe('faq');
    // the same sentence in another file is not a second passage
    expect(picked.map((p) => p.documentId)).toEqual(['big', 'faq', 'big', 'big']);
  });
});

describe('KnowledgeIndex', () => {
  it('searches the meaningful words of a question, through the store', async () => {
    const store = openSqliteStore(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'herald-kb-')), 'kb.db'));
    const index = new KnowledgeIndex(store.knowledge);
    await index.add({ agentId: 'a', filename: 'cats.txt', bytes: 1, mimeType: 'text/plain', sha256: '1'.padStart(64, '0'), metadata: null }, ['Cats sleep sixteen hours a day.', 'Dogs bark.']);
    expect((await index.search('a', 'How long do cats sleep?'))[0]).toMatchObject({ filename: 'cats.txt', content: 'Cats sleep sixteen hours a day.' });
    // only stopwords: nothing to search for
    expect(await index.search('a', 'the of and')).toEqual([]);
    // FTS syntax in a question is inert
    expect(await index.search('a', 'NEAR(cats) OR "dogs* AND')).toHaveLength(2);
    await store.close();
  });
});

describe('retrieval in a base where one large file repeats the question\'s words', () => {
  it('answers "How long do refunds take?" from the small documents that answer it, each passage once', async () => {
    const store = openSqliteStore(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'herald-kb-')), 'kb.db'));
    const index = new KnowledgeIndex(store.knowledge);
    const doc = (filename: string, sha: string) => ({ agentId: 'a', filename, bytes: 1, mimeType: 'text/markdown', sha256: sha.padStart(64, '0'), metadata: null });
    await index.add(doc('policy.md', '1'), ['## Refunds\n\n**Refunds take five business days** once the return arrives.']);
    // the big file is uploaded between the two small ones: neither its first nor its last chunks
    const big = Array.from({ length: 2_500 }, (_, i) => `Case ${i}: the customer mentioned a refund in passing while talking about product ${i}.`);
    await index.add(doc('cases.txt', '2'), big);
    await index.add(doc('faq.md', '3'), ['- How long do refunds take? Refunds take five business days.', '- How long do refunds take? Refunds take five business days.']);
    await index.add(doc('faq-copy.md', '4'), ['- How long do refunds take? Refunds take five business days.']);
    const passages = await index.search('a', 'How long do refunds take?', 4);
    expect(passages.every((p) => p.score > 0)).toBe(true);
    // (faq.md and faq-copy.md hold the same text: either is the passage)
    expect(passages.map((p) => p.filename.replace('-copy', '')).slice(0, 2).sort()).toEqual(['faq.md', 'policy.md']);
    // the same text in another file and twice in one file is one passage
    expect(passages.filter((p) => p.content.includes('How long do refunds take?'))).toHaveLength(1);
    const answer = extractiveAnswer('How long do refunds take?', passages);
    expect(answer).toMatch(/^From my knowledge base:\n\n"Refunds take five business days\." \[1\]/);
    expect(answer).not.toContain('How long do refunds take?');
    expect(answer).not.toMatch(/\*\*|##|^- /m);
    expect(answer.match(/"Refunds take five business days\."/g)).toHaveLength(1);
    await store.close();
  });
});

describe('extractiveAnswer', () => {
  it('quotes the matching sentences with numbered sources, or says it has nothing', () => {
    const answer = extractiveAnswer('How long do cats sleep?', [
      { documentId: 'd', filename: 'cats.txt', chunkId: 'c', score: 2, content: 'Cats are mammals. Cats sleep sixteen hours a day. They purr.' },
    ]);
    expect(answer).toContain('"Cats sleep sixteen hours a day." [1]');
    expect(answer).toContain('Sources: [1] cats.txt');
    expect(answer).not.toContain('They purr');
    expect(extractiveAnswer('anything', [])).toBe(NOTHING_KNOWN);
  });

  it('quotes plain sentences, each once, numbering only the passages it quotes', () => {
    const md = '## Refunds\n\n**Refunds** take *five* [business days](https://example.com/faq).\n\n- Refunds go to the `original` card.\n| Plan | Refund window |\n|---|---|\n| Basic | 30 days |';
    const answer = extractiveAnswer('How long do refunds take?', [
      { documentId: 'a', filename: 'a.md', chunkId: '1', score: 3, content: md },
      { documentId: 'a', filename: 'a.md', chunkId: '2', score: 2.9, content: 'Refunds take five business days.' },
      { documentId: 'c', filename: 'c.md', chunkId: '3', score: 2, content: 'Refunds take up to ten days abroad.' },
    ]);
    expect(answer).toBe('From my knowledge base:\n\n"Refunds take five business days." [1]\n\n"Refunds take up to ten days abroad." [2]\n\nSources: [1] a.md, [2] c.md');
  });

  it('answers in the script of the question: Chinese framing, sentences run on without spaces; Japanese and Korean too', () => {
    const zh = [{ documentId: 'z', filename: 'z.md', chunkId: '1', score: 1, content: '## 退款\n退款需要五个工作日。国际退款需要十个工作日。如需帮助请联系客服！' }];
    expect(extractiveAnswer('退款需要几个工作日？', zh)).toBe('根据我的知识库：\n\n“退款需要五个工作日。国际退款需要十个工作日。” [1]\n\n来源：[1] z.md');
    expect(extractiveAnswer('退款需要多长时间？', [])).toBe('我的知识库里没有相关内容，无法根据文档回答。');
    const ja = [{ documentId: 'j', filename: 'j.md', chunkId: '1', score: 1, content: '返金は五営業日以内に行われます。' }];
    expect(extractiveAnswer('返金にはどのくらいかかりますか？', ja)).toBe('ナレッジベースより：\n\n「返金は五営業日以内に行われます。」 [1]\n\n出典：[1] j.md');
    expect(extractiveAnswer('환불은 얼마나 걸리나요?', [])).toBe('지식 베이스에 관련 내용이 없어 문서로는 답할 수 없습니다.');
    expect(extractiveAnswer('How long do refunds take?', [])).toBe(NOTHING_KNOWN);
  });

  it('takes markdown markup out of a passage', () => {
    expect(plainText('# Title\n> **bold** and _it_ and ~~gone~~ ![logo](x.png) [link](http://x)\n1. step `code`\n```ts\nlet a = 1;\n```\n| a | b |\n| --- | :-: |\n---')).toBe(
      'Title\nbold and it and gone logo link\nstep code\nlet a = 1;\na; b',
    );
    expect(plainText('snake_case_name and 2*3*4 stay')).toBe('snake_case_name and 2*3*4 stay');
  });
});
