import type pg from 'pg';
import type { ApiKeysRepo, StoredApiKey } from '../port.js';
import { query } from './pg-pool.js';

interface KeyRow {
  name: string;
  key_hash: string;
  agents: string[] | null;
  created_at: number;
}

const toKey = (row: KeyRow): StoredApiKey => ({
  name: row.name,
  keyHash: row.key_hash,
  ...(row.agents && { agents: row.agents }),
  createdAt: row.created_at,
});

export function postgresApiKeysRepo(pool: pg.Pool): ApiKeysRepo {
  return {
    async create(key) {
      // DO NOTHING on either unique column: a taken name or hash is a false, not an exception
      const { rowCount } = await query(pool, 'INSERT INTO api_keys (name, key_hash, agents, created_at) VALUES ($1, $2, $3::jsonb, $4) ON CONFLICT DO NOTHING', [
        key.name, key.keyHash, key.agents ? JSON.stringify(key.agents) : null, key.createdAt,
      ]);
      return (rowCount ?? 0) > 0;
    },
    async findByHash(keyHash) {
      const { rows } = await query<KeyRow>(pool, 'SELECT * FROM api_keys WHERE key_hash = $1', [keyHash]);
      return rows[0] && toKey(rows[0]);
    },
    async get(name) {
      const { rows } = await query<KeyRow>(pool, 'SELECT * FROM api_keys WHERE name = $1', [name]);
      return rows[0] && toKey(rows[0]);
    },
    async list() {
      const { rows } = await query<KeyRow>(pool, 'SELECT * FROM api_keys ORDER BY created_at, name');
      return rows.map(toKey);
    },
    async revoke(name) {
      const { rowCount } = await query(pool, 'DELETE FROM api_keys WHERE name = $1', [name]);
      return (rowCount ?? 0) > 0;
    },
  };
}
