import type { ApiKeysRepo, StoredApiKey } from '../port.js';
import type { SqliteDatabase } from './open-database.js';

interface KeyRow {
  name: string;
  key_hash: string;
  agents: string | null;
  created_at: number;
}

const toKey = (row: KeyRow): StoredApiKey => ({
  name: row.name,
  keyHash: row.key_hash,
  ...(row.agents && { agents: JSON.parse(row.agents) as string[] }),
  createdAt: row.created_at,
});

export function sqliteApiKeysRepo(db: SqliteDatabase): ApiKeysRepo {
  // DO NOTHING on either unique column: a taken name or hash is a false, not an exception
  const insert = db.prepare<[string, string, string | null, number]>(
    'INSERT INTO api_keys (name, key_hash, agents, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
  );
  const byHash = db.prepare<[string], KeyRow>('SELECT * FROM api_keys WHERE key_hash = ?');
  const byName = db.prepare<[string], KeyRow>('SELECT * FROM api_keys WHERE name = ?');
  const all = db.prepare<[], KeyRow>('SELECT * FROM api_keys ORDER BY created_at, name');
  const remove = db.prepare<[string]>('DELETE FROM api_keys WHERE name = ?');
  return {
    async create(key) {
      return insert.run(key.name, key.keyHash, key.agents ? JSON.stringify(key.agents) : null, key.createdAt).changes > 0;
    },
    async findByHash(keyHash) {
      const row = byHash.get(keyHash);
      return row && toKey(row);
    },
    async get(name) {
      const row = byName.get(name);
      return row && toKey(row);
    },
    async list() {
      return all.all().map(toKey);
    },
    async revoke(name) {
      return remove.run(name).changes > 0;
    },
  };
}
