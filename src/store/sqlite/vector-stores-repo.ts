import type { StoredVectorStore, StoredVectorStoreFile, VectorStoresRepo } from '../port.js';
import type { SqliteDatabase } from './open-database.js';

interface StoreRow {
  id: string;
  name: string;
  metadata: string | null;
  agents: string | null;
  created_at: number;
}

interface FileRow {
  vector_store_id: string;
  file_id: string;
  status: StoredVectorStoreFile['status'];
  last_error: string | null;
  document_id: string | null;
  bytes: number;
  created_at: number;
}

const toStore = (row: StoreRow): StoredVectorStore => ({
  id: row.id,
  name: row.name,
  metadata: row.metadata ? (JSON.parse(row.metadata) as Record<string, string>) : null,
  createdAt: row.created_at,
  ...(row.agents && { agents: JSON.parse(row.agents) as string[] }),
});

const toFile = (row: FileRow): StoredVectorStoreFile => ({
  vectorStoreId: row.vector_store_id,
  fileId: row.file_id,
  status: row.status,
  lastError: row.last_error ? (JSON.parse(row.last_error) as StoredVectorStoreFile['lastError']) : null,
  documentId: row.document_id,
  bytes: row.bytes,
  createdAt: row.created_at,
});

const json = (value: unknown) => (value == null ? null : JSON.stringify(value));

export function sqliteVectorStoresRepo(db: SqliteDatabase): VectorStoresRepo {
  const insert = db.prepare<[string, string, string | null, string | null, number]>(
    'INSERT INTO vector_stores (id, name, metadata, agents, created_at) VALUES (?, ?, ?, ?, ?)',
  );
  const byId = db.prepare<[string], StoreRow>('SELECT * FROM vector_stores WHERE id = ?');
  const all = db.prepare<[], StoreRow>('SELECT * FROM vector_stores ORDER BY created_at, id');
  const setNameAndMetadata = db.prepare<[string, string | null, string]>('UPDATE vector_stores SET name = ?, metadata = ? WHERE id = ?');
  const remove = db.prepare<[string]>('DELETE FROM vector_stores WHERE id = ?');
  const insertFile = db.prepare<[string, string, string, string | null, string | null, number, number]>(
    `INSERT INTO vector_store_files (vector_store_id, file_id, status, last_error, document_id, bytes, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
  );
  const fileOf = db.prepare<[string, string], FileRow>('SELECT * FROM vector_store_files WHERE vector_store_id = ? AND file_id = ?');
  const filesOf = db.prepare<[string], FileRow>('SELECT * FROM vector_store_files WHERE vector_store_id = ? ORDER BY created_at, file_id');
  const finish = db.prepare<[string, string | null, string | null, string, string]>(
    "UPDATE vector_store_files SET status = ?, last_error = ?, document_id = ? WHERE vector_store_id = ? AND file_id = ? AND status = 'in_progress'",
  );
  const removeFile = db.prepare<[string, string]>('DELETE FROM vector_store_files WHERE vector_store_id = ? AND file_id = ?');
  const ofFile = db.prepare<[string], FileRow>('SELECT * FROM vector_store_files WHERE file_id = ? ORDER BY created_at, vector_store_id');
  const pending = db.prepare<[], FileRow>("SELECT * FROM vector_store_files WHERE status = 'in_progress' ORDER BY created_at");
  return {
    async create(store) {
      insert.run(store.id, store.name, json(store.metadata), store.agents ? JSON.stringify(store.agents) : null, store.createdAt);
    },
    async get(id) {
      const row = byId.get(id);
      return row && toStore(row);
    },
    async list() {
      return all.all().map(toStore);
    },
    async update(id, patch) {
      return db.transaction(() => {
        const row = byId.get(id);
        if (!row) return undefined;
        const next = { ...toStore(row), ...(patch.name !== undefined && { name: patch.name }), ...(patch.metadata !== undefined && { metadata: patch.metadata }) };
        setNameAndMetadata.run(next.name, json(next.metadata), id);
        return next;
      })();
    },
    async delete(id) {
      return remove.run(id).changes > 0;
    },
    async addFile(row) {
      const created = insertFile.run(row.vectorStoreId, row.fileId, row.status, json(row.lastError), row.documentId, row.bytes, row.createdAt).changes > 0;
      return { file: created ? row : toFile(fileOf.get(row.vectorStoreId, row.fileId)!), created };
    },
    async getFile(vectorStoreId, fileId) {
      const row = fileOf.get(vectorStoreId, fileId);
      return row && toFile(row);
    },
    async listFiles(vectorStoreId) {
      return filesOf.all(vectorStoreId).map(toFile);
    },
    async finishFile(vectorStoreId, fileId, outcome) {
      return finish.run(outcome.status, json(outcome.lastError), outcome.documentId, vectorStoreId, fileId).changes > 0;
    },
    async removeFile(vectorStoreId, fileId) {
      return removeFile.run(vectorStoreId, fileId).changes > 0;
    },
    async rowsOfFile(fileId) {
      return ofFile.all(fileId).map(toFile);
    },
    async inProgress() {
      return pending.all().map(toFile);
    },
  };
}
