import { describe, expect, it } from 'vitest';
import { indexTextOf } from '../../src/knowledge/text-terms.js';
import type { OpenStore } from './open-store-under-test.js';

/** files uploaded through /v1/files and the vector stores made of them */
export function filesCases(open: OpenStore) {
  describe('files and vector stores', () => {
    it('keeps a file with its bytes, lists and deletes it, also for another handle', async () => {
      const store = await open();
      const bytes = new Uint8Array([0, 1, 2, 250, 255]);
      await store.files.create({ id: 'file-a', filename: 'a.md', purpose: 'assistants', bytes: 5, createdAt: 1, agents: ['main'] }, bytes);
      await store.files.create({ id: 'file-b', filename: 'b.md', purpose: 'user_data', bytes: 0, createdAt: 2 }, new Uint8Array());
      const other = await open(store);
      expect(await other.files.get('file-a')).toEqual({ id: 'file-a', filename: 'a.md', purpose: 'assistants', bytes: 5, createdAt: 1, agents: ['main'] });
      expect([...(await other.files.content('file-a'))!]).toEqual([0, 1, 2, 250, 255]);
      expect((await other.files.content('file-b'))!.byteLength).toBe(0);
      expect((await other.files.list()).map((f) => f.id)).toEqual(['file-a', 'file-b']);
      expect(await store.files.delete('file-a')).toBe(true);
      expect(await store.files.delete('file-a')).toBe(false);
      expect(await other.files.get('file-a')).toBeUndefined();
      expect(await other.files.content('file-a')).toBeUndefined();
    });

    it("reads a document's chunks back in order (a vector store file's content), none for an unknown one", async () => {
      const store = await open();
      const texts = ['first part', 'second part', 'third part'];
      const { document } = await store.knowledge.add(
        { agentId: 'vector_store:vs_1', filename: 'a.md', bytes: 30, mimeType: 'text/markdown', sha256: 'c'.repeat(64), metadata: null },
        texts.map((content) => ({ content, terms: indexTextOf(content) })),
      );
      expect(await (await open(store)).knowledge.chunksOf(document.id)).toEqual(texts);
      expect(await store.knowledge.chunksOf('doc_nope')).toEqual([]);
    });

    it('keeps vector stores, their files once each, and their outcome once', async () => {
      const store = await open();
      await store.vectorStores.create({ id: 'vs_1', name: 'Docs', metadata: { team: 'a' }, createdAt: 1, agents: ['main'] });
      await store.vectorStores.create({ id: 'vs_2', name: '', metadata: null, createdAt: 2 });
      expect(await store.vectorStores.get('vs_1')).toEqual({ id: 'vs_1', name: 'Docs', metadata: { team: 'a' }, createdAt: 1, agents: ['main'] });
      expect((await store.vectorStores.list()).map((s) => s.id)).toEqual(['vs_1', 'vs_2']);
      expect(await store.vectorStores.update('vs_1', { name: 'Handbook' })).toMatchObject({ name: 'Handbook', metadata: { team: 'a' } });
      expect(await store.vectorStores.update('vs_1', { metadata: null })).toMatchObject({ name: 'Handbook', metadata: null });
      expect(await store.vectorStores.update('vs_9', { name: 'x' })).toBeUndefined();

      const row = { vectorStoreId: 'vs_1', fileId: 'file-a', status: 'in_progress' as const, lastError: null, documentId: null, bytes: 5, createdAt: 3 };
      expect(await store.vectorStores.addFile(row)).toEqual({ file: row, created: true });
      expect(await store.vectorStores.addFile({ ...row, createdAt: 4 })).toEqual({ file: row, created: false });
      await store.vectorStores.addFile({ ...row, fileId: 'file-b', createdAt: 5 });
      expect((await store.vectorStores.inProgress()).map((f) => f.fileId)).toEqual(['file-a', 'file-b']);
      expect(await store.vectorStores.finishFile('vs_1', 'file-a', { status: 'completed', lastError: null, documentId: 'doc_1' })).toBe(true);
      expect(await store.vectorStores.finishFile('vs_1', 'file-a', { status: 'failed', lastError: { code: 'server_error', message: 'x' }, documentId: null })).toBe(false);
      const failed = { status: 'failed' as const, lastError: { code: 'invalid_file', message: 'unreadable' }, documentId: null };
      expect(await store.vectorStores.finishFile('vs_1', 'file-b', failed)).toBe(true);
      const other = await open(store);
      expect(await other.vectorStores.getFile('vs_1', 'file-a')).toEqual({ ...row, status: 'completed', documentId: 'doc_1' });
      expect((await other.vectorStores.listFiles('vs_1')).map((f) => [f.fileId, f.status, f.lastError])).toEqual([
        ['file-a', 'completed', null],
        ['file-b', 'failed', { code: 'invalid_file', message: 'unreadable' }],
      ]);
      expect(await other.vectorStores.inProgress()).toEqual([]);
      await store.vectorStores.addFile({ ...row, vectorStoreId: 'vs_2', createdAt: 6 });
      expect((await other.vectorStores.rowsOfFile('file-a')).map((f) => f.vectorStoreId)).toEqual(['vs_1', 'vs_2']);
      expect(await store.vectorStores.removeFile('vs_1', 'file-b')).toBe(true);
      expect(await store.vectorStores.removeFile('vs_1', 'file-b')).toBe(false);
      expect(await store.vectorStores.delete('vs_1')).toBe(true);
      expect(await store.vectorStores.delete('vs_1')).toBe(false);
      expect(await other.vectorStores.listFiles('vs_1')).toEqual([]);
      expect(await other.vectorStores.getFile('vs_1', 'file-a')).toBeUndefined();
    });
  });
}
