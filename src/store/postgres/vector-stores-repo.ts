import type pg from 'pg';
import type { StoredVectorStore, StoredVectorStoreFile, VectorStoresRepo } from '../port.js';
import { query } from './pg-pool.js';

interface StoreRow {
  id: string;
  name: string;
  metadata: Record<string, string> | null;
  agents: string[] | null;
  created_at: string | number;
}

interface FileRow {
  vector_store_id: string;
  file_id: string;
  status: StoredVectorStoreFile['status'];
  last_error: StoredVectorStoreFile['lastError'];
  document_id: string | null;
  bytes: string | number;
  created_at: string | number;
}

const toStore = (row: StoreRow): StoredVectorStore => ({
  id: row.id,
  name: row.name,
  metadata: row.metadata,
  createdAt: Number(row.created_at),
  ...(row.agents && { agents: row.agents }),
});

const toFile = (row: FileRow): StoredVectorStoreFile => ({
  vectorStoreId: row.vector_store_id,
  fileId: row.file_id,
  status: row.status,
  lastError: row.last_error,
  documentId: row.document_id,
  bytes: Number(row.bytes),
  createdAt: Number(row.created_at),
});

const json = (value: unknown) => (value == null ? null : JSON.stringify(value));

export function postgresVectorStoresRepo(pool: pg.Pool): VectorStoresRepo {
  return {
    async create(store) {
      await query(pool, 'INSERT INTO vector_stores (id, name, metadata, agents, created_at) VALUES ($1, $2, $3::jsonb, $4::jsonb, $5)', [
        store.id, store.name, json(store.metadata), store.agents ? JSON.stringify(store.agents) : null, store.createdAt,
      ]);
    },
    async get(id) {
      const { rows } = await query<StoreRow>(pool, 'SELECT * FROM vector_stores WHERE id = $1', [id]);
      return rows[0] && toStore(rows[0]);
    },
    async list() {
      const { rows } = await query<StoreRow>(pool, 'SELECT * FROM vector_stores ORDER BY created_at, id');
      return rows.map(toStore);
    },
    async update(id, patch) {
      // one statement: a field left out keeps its value (a null metadata clears it)
      const { rows } = await query<StoreRow>(
        pool,
        `UPDATE vector_stores SET name = CASE WHEN $2 THEN $3 ELSE name END, metadata = CASE WHEN $4 THEN $5::jsonb ELSE metadata END
          WHERE id = $1 RETURNING *`,
        [id, patch.name !== undefined, patch.name ?? null, patch.metadata !== undefined, json(patch.metadata)],
      );
      return rows[0] && toStore(rows[0]);
    },
    async delete(id) {
      const { rowCount } = await query(pool, 'DELETE FROM vector_stores WHERE id = $1', [id]);
      return (rowCount ?? 0) > 0;
    },
    async addFile(row) {
      const { rowCount } = await query(
        pool,
        `INSERT INTO vector_store_files (vector_store_id, file_id, status, last_error, document_id, bytes, created_at)
         VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7) ON CONFLICT DO NOTHING`,
        [row.vectorStoreId, row.fileId, row.status, json(row.lastError), row.documentId, row.bytes, row.createdAt],
      );
      if (rowCount) return { file: row, created: true };
      return { file: (await this.getFile(row.vectorStoreId, row.fileId))!, created: false };
    },
    async getFile(vectorStoreId, fileId) {
      const { rows } = await query<FileRow>(pool, 'SELECT * FROM vector_store_files WHERE vector_store_id = $1 AND file_id = $2', [vectorStoreId, fileId]);
      return rows[0] && toFile(rows[0]);
    },
    async listFiles(vectorStoreId) {
      const { rows } = await query<FileRow>(pool, 'SELECT * FROM vector_store_files WHERE vector_store_id = $1 ORDER BY created_at, file_id', [vectorStoreId]);
      return rows.map(toFile);
    },
    async finishFile(vectorStoreId, fileId, outcome) {
      const { rowCount } = await query(
        pool,
        "UPDATE vector_store_files SET status = $3, last_error = $4::jsonb, document_id = $5 WHERE vector_store_id = $1 AND file_id = $2 AND status = 'in_progress'",
        [vectorStoreId, fileId, outcome.status, json(outcome.lastError), outcome.documentId],
      );
      return (rowCount ?? 0) > 0;
    },
    async removeFile(vectorStoreId, fileId) {
      const { rowCount } = await query(pool, 'DELETE FROM vector_store_files WHERE vector_store_id = $1 AND file_id = $2', [vectorStoreId, fileId]);
      return (rowCount ?? 0) > 0;
    },
    async rowsOfFile(fileId) {
      const { rows } = await query<FileRow>(pool, 'SELECT * FROM vector_store_files WHERE file_id = $1 ORDER BY created_at, vector_store_id', [fileId]);
      return rows.map(toFile);
    },
    async inProgress() {
      const { rows } = await query<FileRow>(pool, "SELECT * FROM vector_store_files WHERE status = 'in_progress' ORDER BY created_at");
      return rows.map(toFile);
    },
  };
}
