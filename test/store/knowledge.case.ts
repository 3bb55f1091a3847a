import { describe, expect, it } from 'vitest';
import { queryTerms } from '../../src/knowledge/searching/search-query.js';
import { indexTextOf } from '../../src/knowledge/text-terms.js';
import { FREQUENT_TERM_CHUNKS, FREQUENT_TERM_SAMPLE, frequentTermFrequency, type NewKnowledgeDocument } from '../../src/store/port.js';
import type { OpenStore } from './open-store-under-test.js';

/**
 * another process's write can reach this one only through I/O (a request, a message), which lands
 * in a later event-loop turn: the SQLite adapter looks for other connections' commits once a turn
 */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

const doc = (agentId: string, filename: string, sha: string, embeddingModel?: string): NewKnowledgeDocument => ({
  agentId, filename, bytes: 1, mimeType: 'text/plain', sha256: sha.padStart(64, '0'), metadata: sha === '1' ? { source: 'test' } : null, embeddingModel,
});
// chunks as knowledge/ hands them over: the text and its index form
const indexed = (...texts: string[]) => texts.map((content) => ({ content, terms: indexTextOf(content) }));

/**
 * A parse's batches held after the first until `release`: the document is being written
 * meanwhile. `last` is the batch after it, or the error the parse then fails with.
 */
function heldBatches(firstBatch: ReturnType<typeof indexed>, last: ReturnType<typeof indexed> | Error) {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let taken = 0;
  async function* batches() {
    yield firstBatch;
    taken = 1;
    await held;
    if (last instanceof Error) throw last;
    yield last;
  }
  return { release, batches, taken: () => taken };
}

/** knowledge: documents with their chunks, searched per agent */
export function knowledgeCases(open: OpenStore) {
  describe('knowledge', () => {
    it('stores documents with their chunks and finds them by id, hash and agent', async () => {
      const store = await open();
      const { document, created } = await store.knowledge.add(doc('a', 'cats.txt', '1'), indexed('Cats sleep sixteen hours a day.', 'Cats purr when they are content.'));
      expect(created).toBe(true);
      expect(document).toMatchObject({ agentId: 'a', filename: 'cats.txt', chunkCount: 2, status: 'ready', metadata: { source: 'test' } });
      expect(await store.knowledge.get(document.id)).toEqual(document);
      expect(await store.knowledge.findByHash('a', '1'.padStart(64, '0'))).toEqual(document);
      expect(await store.knowledge.findByHash('b', '1'.padStart(64, '0'))).toBeUndefined();
      await store.knowledge.add(doc('b', 'b.txt', '2'), indexed('Other.'));
      expect((await store.knowledge.list('a')).map((d) => d.filename)).toEqual(['cats.txt']);
      expect(await store.knowledge.list()).toHaveLength(2);
      expect(await store.knowledge.documentCounts()).toEqual(new Map([['a', 1], ['b', 1]]));
      expect(await store.probe.counts()).toMatchObject({ knowledgeDocuments: 2, knowledgeChunks: 3 });
    });

    it('writes chunks given in batches as they arrive, and shows the document only once the last is in', async () => {
      const store = await open();
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let taken = 0;
      async function* batches() {
        yield indexed('The quokka smiles.', 'Quokkas live on Rottnest.');
        taken = 1;
        await held;
        yield indexed('A third quokka chunk.');
        taken = 2;
      }
      const adding = store.knowledge.add(doc('a', 'quokka.txt', '1'), batches());
      while (taken < 1) await nextTurn();
      // the first batch is written, the document not seen
      expect(await store.knowledge.list('a')).toEqual([]);
      expect(await store.knowledge.findByHash('a', '1'.padStart(64, '0'))).toBeUndefined();
      expect((await store.knowledge.search('a', ['quokka'], 5)).candidates).toEqual([]);
      if (store.knowledge.hasChunks) expect(await store.knowledge.hasChunks('a')).toBe(false);
      release();
      const { document, created } = await adding;
      expect(taken).toBe(2);
      expect(created).toBe(true);
      expect(document).toMatchObject({ chunkCount: 3, status: 'ready' });
      expect(await store.knowledge.chunksOf(document.id)).toEqual(['The quokka smiles.', 'Quokkas live on Rottnest.', 'A third quokka chunk.']);
      expect((await store.knowledge.search('a', ['quokka'], 5)).candidates).toHaveLength(3);
      expect(await store.knowledge.documentCounts()).toEqual(new Map([['a', 1]]));
    });

    it('keeps nothing of a document whose batches failed, and takes the same file again whole', async () => {
      const store = await open();
      async function* failing() {
        yield indexed('The quokka smiles.');
        throw new Error('the parse worker stopped');
      }
      await expect(store.knowledge.add(doc('a', 'quokka.txt', '1'), failing())).rejects.toThrow('the parse worker stopped');
      expect(await store.knowledge.list()).toEqual([]);
      expect((await store.knowledge.search('a', ['quokka'], 5)).candidates).toEqual([]);
      expect(await store.probe.counts()).toMatchObject({ knowledgeDocuments: 0, knowledgeChunks: 0 });
      async function* whole() {
        yield indexed('The quokka smiles.');
        yield indexed('Quokkas live on Rottnest.');
      }
      const { document, created } = await store.knowledge.add(doc('a', 'quokka.txt', '1'), whole());
      expect(created).toBe(true);
      expect(document.chunkCount).toBe(2);
      expect(await store.probe.counts()).toMatchObject({ knowledgeDocuments: 1, knowledgeChunks: 2 });
    });

    it('answers the document stored first for the same content given in batches, without reading them', async () => {
      const store = await open();
      const { document } = await store.knowledge.add(doc('a', 'one.txt', '7'), indexed('Same text.'));
      let read = false;
      async function* batches() {
        read = true;
        yield indexed('Same text.');
      }
      const again = await store.knowledge.add(doc('a', 'two.txt', '7'), batches());
      expect(again).toEqual({ document, created: false });
      expect(read).toBe(false);
    });

    it('replaces a document\'s metadata and keeps its chunks', async () => {
      const store = await open();
      const { document } = await store.knowledge.add(doc('a', 'cats.txt', '1'), indexed('Cats sleep sixteen hours a day.'));
      const updated = await store.knowledge.setMetadata(document.id, { source: 'wiki', rev: 2 });
      expect(updated).toEqual({ ...document, metadata: { source: 'wiki', rev: 2 } });
      expect(await store.knowledge.get(document.id)).toEqual(updated);
      expect((await store.knowledge.setMetadata(document.id, null))?.metadata).toBeNull();
      expect(await store.knowledge.setMetadata('doc_none', {})).toBeUndefined();
      expect((await store.knowledge.search('a', ['cat'], 5)).candidates).toHaveLength(1);
    });

    it('stores the same content for one agent once, also when two uploads race', async () => {
      const a = await open();
      const b = await open(a);
      const results = await Promise.all([a.knowledge.add(doc('a', 'one.txt', '7'), indexed('Same text.')), b.knowledge.add(doc('a', 'two.txt', '7'), indexed('Same text.'))]);
      expect(results.map((r) => r.created).sort()).toEqual([false, true]);
      expect(results[0]!.document.id).toBe(results[1]!.document.id);
      expect(await a.knowledge.list('a')).toHaveLength(1);
    });

    it('answers the same content added while the first is still written (same handle or a second replica) with the whole document, once', async () => {
      const a = await open();
      const b = await open(a);
      const { release, batches, taken } = heldBatches(indexed('The quokka smiles.', 'Quokkas live on Rottnest.'), indexed('A third quokka chunk.'));
      const first = a.knowledge.add(doc('a', 'one.txt', '7'), batches());
      while (taken() < 1) await nextTurn();
      const settled: string[] = [];
      const again = a.knowledge.add(doc('a', 'two.txt', '7'), indexed('Other text.')).finally(() => settled.push('again'));
      const replica = b.knowledge.add(doc('a', 'three.txt', '7'), indexed('Other text.')).finally(() => settled.push('replica'));
      for (let i = 0; i < 20; i++) await nextTurn();
      // neither is answered with the document half written
      expect(settled).toEqual([]);
      release();
      const results = await Promise.all([first, again, replica]);
      expect(results.map((r) => r.created)).toEqual([true, false, false]);
      for (const { document } of results) expect(document).toEqual(results[0]!.document);
      expect(results[0]!.document).toMatchObject({ filename: 'one.txt', chunkCount: 3, status: 'ready' });
      expect(await b.knowledge.list('a')).toHaveLength(1);
      expect(await b.probe.counts()).toMatchObject({ knowledgeDocuments: 1, knowledgeChunks: 3 });
    });

    it('removes nothing a finished or a failed add left when a start removes half-written documents', async () => {
      const store = await open();
      const { document } = await store.knowledge.add(doc('a', 'cats.txt', '1'), indexed('Cats sleep sixteen hours a day.'));
      async function* failing() {
        yield indexed('The quokka smiles.');
        throw new Error('the parse worker stopped');
      }
      await expect(store.knowledge.add(doc('a', 'quokka.txt', '2'), failing())).rejects.toThrow('the parse worker stopped');
      expect(await store.knowledge.removeUnfinished()).toBe(0);
      expect(await store.knowledge.list('a')).toEqual([document]);
    });

    it('stores the same content itself when the add it waited for failed', async () => {
      const a = await open();
      const b = await open(a);
      const { release, batches, taken } = heldBatches(indexed('The quokka smiles.'), new Error('the parse worker stopped'));
      const first = a.knowledge.add(doc('a', 'one.txt', '7'), batches());
      while (taken() < 1) await nextTurn();
      const again = a.knowledge.add(doc('a', 'two.txt', '7'), indexed('Same text.', 'Twice.'));
      const replica = b.knowledge.add(doc('a', 'three.txt', '7'), indexed('Same text.', 'Twice.'));
      release();
      await expect(first).rejects.toThrow('the parse worker stopped');
      const results = await Promise.all([again, replica]);
      expect(results.map((r) => r.created).sort()).toEqual([false, true]);
      expect(results[0]!.document).toEqual(results[1]!.document);
      expect(results[0]!.document.chunkCount).toBe(2);
      expect(await a.probe.counts()).toMatchObject({ knowledgeDocuments: 1, knowledgeChunks: 2 });
    });

    it('finds candidates of one agent holding a term (stemmed, any script), with term counts, and forgets a deleted document', async () => {
      const store = await open();
      const { document: cats } = await store.knowledge.add(doc('a', 'cats.txt', '1'), indexed('Cats sleep sixteen hours a day.', 'Cats purr when they are content.'));
      await store.knowledge.add(doc('a', 'dogs.txt', '2'), indexed('Dogs need a walk twice a day.'));
      await store.knowledge.add(doc('a', 'birds.txt', '4'), indexed('Birds sing at dawn.', '退款通常在五个工作日内完成。'));
      await store.knowledge.add(doc('b', 'secret.txt', '3'), indexed('Cats are secretly plotting.'));
      const terms = queryTerms('long cats sleep');
      const found = await store.knowledge.search('a', terms, 40);
      expect(found.total).toBe(5);
      expect(found.frequencies).toEqual([0, 2, 1]);
      expect(found.candidates.map((c) => c.content).sort()).toEqual(['Cats purr when they are content.', 'Cats sleep sixteen hours a day.']);
      expect(found.candidates.find((c) => c.content.startsWith('Cats sleep'))).toMatchObject({ filename: 'cats.txt', documentId: cats.id, terms: 'cat sleep sixteen hour a dai' });
      expect((await store.knowledge.search('a', queryTerms('walking dogs'), 40)).candidates.map((c) => c.filename)).toEqual(['dogs.txt']);
      expect((await store.knowledge.search('a', queryTerms('退款需要多长时间？'), 40)).candidates.map((c) => c.filename)).toEqual(['birds.txt']);
      expect((await store.knowledge.search('a', ['cat'], 1)).candidates).toHaveLength(1);
      expect((await store.knowledge.search('c', ['cat'], 4)).candidates).toEqual([]);
      expect((await store.knowledge.search('a', ['zebra'], 4)).candidates).toEqual([]);
      expect((await store.knowledge.search('a', [], 4)).candidates).toEqual([]);

      expect(await store.knowledge.delete(cats.id)).toBe(true);
      expect(await store.knowledge.delete(cats.id)).toBe(false);
      expect(await store.knowledge.get(cats.id)).toBeUndefined();
      expect((await store.knowledge.search('a', ['cat', 'sleep'], 4)).candidates).toEqual([]);
      expect(await store.probe.counts()).toMatchObject({ knowledgeDocuments: 3, knowledgeChunks: 4 });
    });

    it('for a frequent term, takes the first and last chunks holding it and those of small documents', async () => {
      const store = await open();
      const big = Array.from({ length: FREQUENT_TERM_CHUNKS + 100 }, (_, i) => `Section ${i}: the refund rules of product line ${i}.`);
      await store.knowledge.add(doc('a', 'big.txt', '1'), indexed(...big));
      await store.knowledge.add(doc('a', 'faq.txt', '2'), indexed('Shipping is free.', 'A refund is paid to the card.'));
      await store.knowledge.add(doc('a', 'terms.txt', '3'), indexed('Business days are Monday to Friday.'));
      const found = await store.knowledge.search('a', ['refund', 'busi'], 40);
      const total = FREQUENT_TERM_CHUNKS + 103;
      expect(found.total).toBe(total);
      expect(found.frequencies).toEqual([frequentTermFrequency(total), 1]);
      const of = (filename: string) => found.candidates.filter((c) => c.filename === filename).map((c) => c.content);
      expect(of('faq.txt')).toEqual(['A refund is paid to the card.']);
      expect(of('terms.txt')).toEqual(['Business days are Monday to Friday.']);
      // the last chunks holding it by position: the small document's, then the large one's
      expect(of('big.txt').sort()).toEqual([...big.slice(0, FREQUENT_TERM_SAMPLE), ...big.slice(1 - FREQUENT_TERM_SAMPLE)].sort());
      expect(new Set(found.candidates.map((c) => c.chunkId)).size).toBe(found.candidates.length);

      // what was read of the frequent term before is not used once its chunks are gone
      const [bigDocument] = (await store.knowledge.list('a')).filter((d) => d.filename === 'big.txt');
      await store.knowledge.delete(bigDocument!.id);
      const after = await store.knowledge.search('a', ['refund', 'busi'], 40);
      expect(after.frequencies).toEqual([1, 1]);
      expect(after.candidates.map((c) => c.filename).sort()).toEqual(['faq.txt', 'terms.txt']);
    });

    it('takes the chunks holding the most weight of the question, the newest first among equals', async () => {
      const store = await open();
      // "zebra" is rare (weighs more), "stripe" in many chunks; the limit keeps two of the four
      await store.knowledge.add(doc('a', 'old.txt', '1'), indexed('A zebra grazes.', 'Stripes and a zebra.', 'Stripes only.'));
      await store.knowledge.add(doc('a', 'new.txt', '2'), indexed('Another zebra grazes.', 'Stripes again.', 'More stripes.', 'Plain text.', 'Other text.'));
      const found = await store.knowledge.search('a', ['zebra', 'stripe'], 2);
      expect(found.frequencies).toEqual([3, 4]);
      expect(found.candidates.map((c) => c.content)).toEqual(['Stripes and a zebra.', 'Another zebra grazes.']);
    });

    it('never finds a deleted document and finds a new one at once, also after the same question was asked', async () => {
      const store = await open();
      const other = await open(store);
      const { document: first } = await store.knowledge.add(doc('a', 'first.txt', '1'), indexed('The quokka smiles.', 'Nothing here.', 'Nor here.'));
      const ask = async (s = store) => (await s.knowledge.search('a', ['quokka'], 4)).candidates.map((c) => c.filename);
      expect(await ask()).toEqual(['first.txt']);
      await store.knowledge.delete(first.id);
      expect(await ask()).toEqual([]);
      await store.knowledge.add(doc('a', 'second.txt', '2'), indexed('A quokka again.', 'Filler.', 'More filler.'));
      expect(await ask()).toEqual(['second.txt']);
      // written through another handle on the same store (another process on the file, another replica)
      expect(await ask(other)).toEqual(['second.txt']);
      const { document: third } = await other.knowledge.add(doc('a', 'third.txt', '3'), indexed('Quokka island.'));
      await nextTurn();
      expect((await ask()).sort()).toEqual(['second.txt', 'third.txt']);
      await other.knowledge.delete(third.id);
      await nextTurn();
      expect(await ask()).toEqual(['second.txt']);
    });

    it('says whether an agent has chunks (where the adapter answers it), also after writes through another handle', async () => {
      const store = await open();
      if (!store.knowledge.hasChunks) return;
      const other = await open(store);
      const has = async (s = store) => s.knowledge.hasChunks!('a');
      expect(await has()).toBe(false);
      const { document } = await store.knowledge.add(doc('a', 'one.txt', '1'), indexed('The quokka smiles.'));
      expect(await has()).toBe(true);
      expect(await store.knowledge.hasChunks!('b')).toBe(false);
      await store.knowledge.delete(document.id);
      expect(await has()).toBe(false);
      // written through another handle on the same store (another process on the file)
      expect(await has(other)).toBe(false);
      await other.knowledge.add(doc('a', 'two.txt', '2'), indexed('Quokka island.'));
      await nextTurn();
      expect(await has()).toBe(true);
    });

    it('keeps embeddings and finds the nearest chunks of the same model', async () => {
      const store = await open();
      const v = (...xs: number[]) => Float32Array.from(xs);
      await store.knowledge.add(doc('a', 'near.txt', '1', 'p/m'), [
        { content: 'East.', terms: 'east', embedding: v(1, 0, 0) },
        { content: 'North-east.', terms: 'north east', embedding: v(0.7, 0.7, 0) },
        { content: 'Up.', terms: 'up', embedding: v(0, 0, 1) },
      ]);
      await store.knowledge.add(doc('a', 'other-model.txt', '2', 'p/other'), [{ content: 'East too.', terms: 'east too', embedding: v(1, 0, 0) }]);
      await store.knowledge.add(doc('b', 'other-agent.txt', '3', 'p/m'), [{ content: 'East again.', terms: 'east again', embedding: v(1, 0, 0) }]);
      const near = await store.knowledge.nearest('a', 'p/m', v(0.9, 0.1, 0), 2);
      expect(near.map((n) => n.content)).toEqual(['East.', 'North-east.']);
      expect(near[0]!.similarity).toBeCloseTo(0.9939, 3);
      expect(near[0]).toMatchObject({ filename: 'near.txt', terms: 'east' });
      // a document added later is seen at once
      await store.knowledge.add(doc('a', 'later.txt', '4', 'p/m'), [{ content: 'Exactly.', terms: 'exactli', embedding: v(0.9, 0.1, 0) }]);
      expect((await store.knowledge.nearest('a', 'p/m', v(0.9, 0.1, 0), 1))[0]!.content).toBe('Exactly.');
      expect(await store.knowledge.nearest('a', 'p/none', v(1, 0, 0), 2)).toEqual([]);
    });
  });
}
