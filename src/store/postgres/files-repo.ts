import type pg from 'pg';
import type { FilesRepo, StoredFile } from '../port.js';
import { query } from './pg-pool.js';

interface FileRow {
  id: string;
  filename: string;
  purpose: string;
  bytes: string | number;
  agents: string[] | null;
  created_at: string | number;
}

const toFile = (row: FileRow): StoredFile => ({
  id: row.id,
  filename: row.filename,
  purpose: row.purpose,
  bytes: Number(row.bytes),
  createdAt: Number(row.created_at),
  ...(row.agents && { agents: row.agents }),
});

const COLUMNS = 'id, filename, purpose, bytes, agents, created_at';

export function postgresFilesRepo(pool: pg.Pool): FilesRepo {
  return {
    async create(file, content) {
      await query(pool, 'INSERT INTO files (id, filename, purpose, bytes, content, agents, created_at) VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7)', [
        file.id, file.filename, file.purpose, file.bytes, Buffer.from(content.buffer, content.byteOffset, content.byteLength),
        file.agents ? JSON.stringify(file.agents) : null, file.createdAt,
      ]);
    },
    async get(id) {
      const { rows } = await query<FileRow>(pool, `SELECT ${COLUMNS} FROM files WHERE id = $1`, [id]);
      return rows[0] && toFile(rows[0]);
    },
    async content(id) {
      const { rows } = await query<{ content: Buffer }>(pool, 'SELECT content FROM files WHERE id = $1', [id]);
      const bytes = rows[0]?.content;
      return bytes && new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    },
    async list() {
      const { rows } = await query<FileRow>(pool, `SELECT ${COLUMNS} FROM files ORDER BY created_at, id`);
      return rows.map(toFile);
    },
    async delete(id) {
      const { rowCount } = await query(pool, 'DELETE FROM files WHERE id = $1', [id]);
      return (rowCount ?? 0) > 0;
    },
  };
}
