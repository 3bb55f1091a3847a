import { describe, expect, it } from 'vitest';
import type { NewKnowledgeDocument } from '../../src/store/port.js';
import type { OpenStore } from './open-store-under-test.js';

const doc = (agentId: string, filename: string, sha: string): NewKnowledgeDocument => ({
  agentId, filename, bytes: 1, mimeType: 'text/plain', sha256: sha.padStart(64, '0'), metadata: sha === '1' ? { source: 'test' } : null,
});

/** knowledge: documents with their chunks, searched per agent */
export function knowledgeCases(open: OpenStore) {
  describe('knowledge', () => {
    it('stores documents with their chunks and finds them by id, hash and agent', async () => {
      const store = await open();
      const { document, created } = await store.knowledge.add(doc('a', 'cats.txt', '1'), ['Cats sleep sixteen hours a day.', 'Cats purr when they are content.']);
      expect(created).toBe(true);
      expect(document).toMatchObject({ agentId: 'a', filename: 'cats.txt', chunkCount: 2, status: 'ready', metadata: { source: 'test' } });
      expect(await store.knowledge.get(document.id)).toEqual(document);
      expect(await store.knowledge.findByHash('a', '1'.padStart(64, '0'))).toEqual(document);
      expect(await store.knowledge.findByHash('b', '1'.padStart(64, '0'))).toBeUndefined();
      await store.knowledge.add(doc('b', 'b.txt', '2'), ['Other.']);
      expect((await store.knowledge.list('a')).map((d) => d.filename)).toEqual(['cats.txt']);
      expect(await store.knowledge.list()).toHaveLength(2);
      expect(await store.knowledge.documentCounts()).toEqual(new Map([['a', 1], ['b', 1]]));
      expect(await store.probe.counts()).toMatchObject({ knowledgeDocuments: 2, knowledgeChunks: 3 });
    });

    it('stores the same content for one agent once, also when two uploads race', async () => {
      const a = await open();
      const b = await open(a);
      const results = await Promise.all([a.knowledge.add(doc('a', 'one.txt', '7'), ['Same text.']), b.knowledge.add(doc('a', 'two.txt', '7'), ['Same text.'])]);
      expect(results.map((r) => r.created).sort()).toEqual([false, true]);
      expect(results[0]!.document.id).toBe(results[1]!.document.id);
      expect(await a.knowledge.list('a')).toHaveLength(1);
    });

    it('searches one agent at a time, ranks with stemming, and forgets a deleted document', async () => {
      const store = await open();
      const { document: cats } = await store.knowledge.add(doc('a', 'cats.txt', '1'), ['Cats sleep sixteen hours a day.', 'Cats purr when they are content.']);
      await store.knowledge.add(doc('a', 'dogs.txt', '2'), ['Dogs need a walk twice a day.']);
      await store.knowledge.add(doc('a', 'birds.txt', '4'), ['Birds sing at dawn.']);
      await store.knowledge.add(doc('b', 'secret.txt', '3'), ['Cats are secretly plotting.']);
      const hits = await store.knowledge.search('a', ['long', 'cats', 'sleep'], 4);
      expect(hits[0]).toMatchObject({ filename: 'cats.txt', documentId: cats.id, content: 'Cats sleep sixteen hours a day.' });
      expect(hits[0]!.score).toBeGreaterThan(0);
      expect(hits.every((h, i) => i === 0 || h.score <= hits[i - 1]!.score)).toBe(true);
      expect(hits.every((h) => h.filename !== 'secret.txt')).toBe(true);
      expect((await store.knowledge.search('a', ['walking', 'dogs'], 4))[0]!.filename).toBe('dogs.txt');
      expect(await store.knowledge.search('a', ['cats'], 1)).toHaveLength(1);
      expect(await store.knowledge.search('c', ['cats'], 4)).toEqual([]);
      expect(await store.knowledge.search('a', ['zebra'], 4)).toEqual([]);
      expect(await store.knowledge.search('a', [], 4)).toEqual([]);

      expect(await store.knowledge.delete(cats.id)).toBe(true);
      expect(await store.knowledge.delete(cats.id)).toBe(false);
      expect(await store.knowledge.get(cats.id)).toBeUndefined();
      expect((await store.knowledge.search('a', ['cats', 'sleep'], 4)).map((h) => h.filename)).not.toContain('cats.txt');
      expect(await store.probe.counts()).toMatchObject({ knowledgeDocuments: 3, knowledgeChunks: 3 });
    });
  });
}
