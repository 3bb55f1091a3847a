import type { FilesRepo, StoredFile } from '../port.js';
import type { SqliteDatabase } from './open-database.js';

interface FileRow {
  id: string;
  filename: string;
  purpose: string;
  bytes: number;
  agents: string | null;
  created_at: number;
}

const toFile = (row: FileRow): StoredFile => ({
  id: row.id,
  filename: row.filename,
  purpose: row.purpose,
  bytes: row.bytes,
  createdAt: row.created_at,
  ...(row.agents && { agents: JSON.parse(row.agents) as string[] }),
});

const COLUMNS = 'id, filename, purpose, bytes, agents, created_at';

export function sqliteFilesRepo(db: SqliteDatabase): FilesRepo {
  const insert = db.prepare<[string, string, string, number, Buffer, string | null, number]>(
    'INSERT INTO files (id, filename, purpose, bytes, content, agents, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const byId = db.prepare<[string], FileRow>(`SELECT ${COLUMNS} FROM files WHERE id = ?`);
  const contentOf = db.prepare<[string], Buffer>('SELECT content FROM files WHERE id = ?').pluck();
  const all = db.prepare<[], FileRow>(`SELECT ${COLUMNS} FROM files ORDER BY created_at, id`);
  const remove = db.prepare<[string]>('DELETE FROM files WHERE id = ?');
  return {
    async create(file, content) {
      insert.run(file.id, file.filename, file.purpose, file.bytes, Buffer.from(content.buffer, content.byteOffset, content.byteLength), file.agents ? JSON.stringify(file.agents) : null, file.createdAt);
    },
    async get(id) {
      const row = byId.get(id);
      return row && toFile(row);
    },
    async content(id) {
      const bytes = contentOf.get(id);
      return bytes && new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    },
    async list() {
      return all.all().map(toFile);
    },
    async delete(id) {
      return remove.run(id).changes > 0;
    },
  };
}
