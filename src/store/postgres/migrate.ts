import type pg from 'pg';
import { ConfigError } from '../../errors.js';
import { migrations as adapterMigrations, type Migration } from './migrations.js';
import { transaction } from './pg-pool.js';

/**
 * Brings the schema to the newest version. Replicas starting at once serialise on an advisory
 * lock (keyed by the schema) and the later ones find nothing left to do. A schema a newer
 * herald migrated is refused untouched: this herald does not know the shape of its tables.
 */
export async function migrate(pool: pg.Pool, schema: string, migrations: Migration[] = adapterMigrations): Promise<number> {
  const ordered = [...migrations].sort((a, b) => a.version - b.version);
  const latest = ordered.at(-1)?.version ?? 0;
  return transaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`herald.migrate:${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    // the connection's search_path named a schema that may not have existed when it connected
    await client.query(`SET LOCAL search_path TO ${schema}`);
    await client.query('CREATE TABLE IF NOT EXISTS herald_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)');
    const { rows } = await client.query<{ v: number | null }>('SELECT MAX(version) AS v FROM herald_migrations');
    const current = rows[0]?.v ?? 0;
    if (current > latest) {
      throw new ConfigError([`storage.postgres: schema ${schema} has version ${current}, newer than this herald knows (${latest}); run a newer herald or use another schema`]);
    }
    for (const migration of ordered) {
      if (migration.version <= current) continue;
      await client.query(migration.sql);
      await client.query('INSERT INTO herald_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [migration.version, migration.name, Date.now()]);
    }
    return latest;
  });
}

/** a read-only reader's check instead of migrating: the schema must be at this herald's version */
export async function checkVersion(pool: pg.Pool, schema: string, migrations: Migration[] = adapterMigrations): Promise<void> {
  const latest = Math.max(0, ...migrations.map((m) => m.version));
  const { rows } = await pool.query<{ v: number | null }>('SELECT MAX(version) AS v FROM herald_migrations').catch(() => ({ rows: [{ v: null }] }));
  const current = rows[0]?.v ?? 0;
  if (current !== latest) throw new ConfigError([`storage.postgres: schema ${schema} has version ${current}, this herald reads ${latest}; start herald serve on it once to migrate`]);
}
