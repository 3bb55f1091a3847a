import type pg from 'pg';
import { ConfigError } from '../../errors.js';
import { definitions as adapterDefinitions, definitionsChecksum } from './definitions.js';
import type { Definition } from './definitions/definition.js';
import { migrations as adapterMigrations, type Migration } from './migrations.js';
import { transaction } from './pg-pool.js';

/**
 * Brings the schema to the newest version. Replicas starting at once serialise on an advisory
 * lock (keyed by the schema) and the later ones find nothing left to do. A schema a newer
 * herald migrated is refused untouched: this herald does not know the shape of its tables.
 *
 * The versioned migrations move tables; the functions and triggers (definitions.ts) are then
 * applied as they are now, when a versioned migration ran or their checksum differs from the
 * one the schema records. Before either, every function and trigger of the schema is dropped:
 * the versioned migrations run on bare tables (no trigger of an older herald fires on what they
 * move, no function pins a row type they change), and none of an older herald's is left over.
 */
export async function migrate(pool: pg.Pool, schema: string, migrations: Migration[] = adapterMigrations, definitions: Definition[] = adapterDefinitions): Promise<number> {
  const ordered = [...migrations].sort((a, b) => a.version - b.version);
  const latest = ordered.at(-1)?.version ?? 0;
  const checksum = definitionsChecksum(definitions);
  return transaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`herald.migrate:${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    // the connection's search_path named a schema that may not have existed when it connected
    await client.query(`SET LOCAL search_path TO ${schema}`);
    await client.query('CREATE TABLE IF NOT EXISTS herald_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)');
    await client.query('CREATE TABLE IF NOT EXISTS herald_definitions (checksum TEXT NOT NULL, applied_at BIGINT NOT NULL)');
    const { rows } = await client.query<{ v: number | null }>('SELECT MAX(version) AS v FROM herald_migrations');
    const current = rows[0]?.v ?? 0;
    if (current > latest) {
      throw new ConfigError([`storage.postgres: schema ${schema} has version ${current}, newer than this herald knows (${latest}); run a newer herald or use another schema`]);
    }
    const recorded = await client.query<{ checksum: string }>('SELECT checksum FROM herald_definitions');
    const pending = ordered.filter((m) => m.version > current);
    if (pending.length === 0 && recorded.rows[0]?.checksum === checksum) return latest;
    await dropDefinitions(client, schema);
    for (const migration of pending) {
      await client.query(migration.sql);
      await client.query('INSERT INTO herald_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [migration.version, migration.name, Date.now()]);
    }
    for (const definition of definitions) await client.query(definition.sql);
    await client.query('DELETE FROM herald_definitions');
    await client.query('INSERT INTO herald_definitions (checksum, applied_at) VALUES ($1, $2)', [checksum, Date.now()]);
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

/** every trigger on the schema's tables (a foreign key's own aside) and every function of the schema */
async function dropDefinitions(client: pg.PoolClient, schema: string): Promise<void> {
  const triggers = await client.query<{ name: string; tablename: string }>(
    `SELECT t.tgname AS name, c.relname AS tablename FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $1 AND NOT t.tgisinternal`,
    [schema],
  );
  for (const t of triggers.rows) await client.query(`DROP TRIGGER ${quoted(t.name)} ON ${quoted(t.tablename)}`);
  const functions = await client.query<{ signature: string }>(
    `SELECT p.oid::regprocedure::text AS signature FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1 AND p.prokind = 'f'`,
    [schema],
  );
  for (const f of functions.rows) await client.query(`DROP FUNCTION ${f.signature}`);
}

const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;
