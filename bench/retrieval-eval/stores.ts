import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Store } from '../../src/store/port.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';

export const ADAPTERS = ['sqlite', 'postgres'] as const;
export type Adapter = (typeof ADAPTERS)[number];

/** the PostgreSQL of the tests and benchmarks (trust auth, database `test`), or HERALD_TEST_PG_URL */
export const PG_URL = process.env.HERALD_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** a fresh, empty store of the adapter, and how to throw it away (file or schema) */
export async function freshStore(adapter: Adapter): Promise<{ store: Store; dispose(): Promise<void> }> {
  if (adapter === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-retrieval-'));
    const store = openSqliteStore(path.join(dir, 'kb.db'));
    return { store, dispose: async () => { await store.close(); fs.rmSync(dir, { recursive: true, force: true }); } };
  }
  const schema = `herald_retrieval_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e9).toString(36)}`;
  const store = await openPostgresStore({ url: PG_URL, schema, poolSize: 4 });
  return {
    store,
    async dispose() {
      await store.close();
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    },
  };
}
