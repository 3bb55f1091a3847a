import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/store/postgres/migrate.js';
import { definitions } from '../../src/store/postgres/definitions.js';
import { migrations } from '../../src/store/postgres/migrations.js';
import { migrations as shipped } from '../fixtures/postgres-migrations-as-shipped.js';
import { dropSchema, PG_URL, requirePostgres, uniqueSchema } from '../helpers/postgres.js';

/**
 * Functions and triggers are defined once (src/store/postgres/definitions/) and applied after the
 * versioned migrations, which hold only tables: a schema migrated from any earlier version, as the
 * herald of that version left it, ends with what a fresh schema has.
 */
const pool = new pg.Pool({ connectionString: PG_URL, max: 2 });
const schemas: string[] = [];
const newSchema = () => {
  const schema = uniqueSchema('herald_defs');
  schemas.push(schema);
  return schema;
};

beforeAll(requirePostgres);
afterAll(async () => {
  await pool.end();
  for (const schema of schemas) await dropSchema(schema);
});

/** a schema as an earlier herald migrated it: the shipped migrations up to `version`, each recorded */
async function asShipped(version: number): Promise<string> {
  const schema = newSchema();
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(`CREATE SCHEMA ${schema}`);
    await client.query(`SET LOCAL search_path TO ${schema}`);
    await client.query('CREATE TABLE herald_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)');
    for (const m of shipped.filter((m) => m.version <= version)) {
      await client.query(m.sql);
      await client.query('INSERT INTO herald_migrations VALUES ($1, $2, 0)', [m.version, m.name]);
    }
    await client.query('COMMIT');
  } finally {
    client.release();
  }
  return schema;
}

/** what a schema holds, its name written as S: functions, triggers, columns and indexes */
async function contents(schema: string) {
  const named = (text: string) => text.replaceAll(schema, 'S');
  const q = async (sql: string) => (await pool.query<{ def: string }>(sql, [schema])).rows.map((r) => named(r.def));
  return {
    functions: await q(`SELECT pg_get_functiondef(p.oid) AS def FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1 ORDER BY p.proname`),
    triggers: await q(
      `SELECT pg_get_triggerdef(t.oid) AS def FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = $1 AND NOT t.tgisinternal ORDER BY c.relname, t.tgname`,
    ),
    columns: await q(
      `SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || COALESCE(column_default, '') AS def
       FROM information_schema.columns WHERE table_schema = $1 AND table_name <> 'herald_definitions' ORDER BY table_name, column_name`,
    ),
    indexes: await q(`SELECT indexdef AS def FROM pg_indexes WHERE schemaname = $1 ORDER BY indexname`),
  };
}

describe('PostgreSQL functions and triggers, defined once', () => {
  it('a fresh schema holds what the shipped migrations made: the same functions, triggers, columns and indexes', { timeout: 120_000 }, async () => {
    const fresh = newSchema();
    await migrate(pool, fresh);
    const old = await asShipped(shipped.at(-1)!.version);
    await migrate(pool, old);
    expect(await contents(fresh)).toEqual(await contents(old));
  });

  it('a schema migrated from every earlier version ends with the functions and triggers of a fresh one', { timeout: 600_000 }, async () => {
    const fresh = newSchema();
    await migrate(pool, fresh);
    const { functions, triggers } = await contents(fresh);
    expect(functions.length).toBeGreaterThan(0);
    const latestShipped = shipped.at(-1)!.version;
    const latest = Math.max(...migrations.map((m) => m.version));
    for (let version = 1; version <= latest; version++) {
      // the shipped versions as their herald left them; a later one as today's versioned list and definitions made it
      const schema = version <= latestShipped ? await asShipped(version) : newSchema();
      if (version > latestShipped) await migrate(pool, schema, migrations.filter((m) => m.version <= version));
      await migrate(pool, schema);
      const migrated = await contents(schema);
      expect({ version, functions: migrated.functions, triggers: migrated.triggers }).toEqual({ version, functions, triggers });
      await dropSchema(schema);
    }
  });

  it('opening it again changes nothing; a changed list is applied again, its checksum recorded, and what it no longer holds is gone', { timeout: 60_000 }, async () => {
    const schema = newSchema();
    await migrate(pool, schema);
    const recorded = async () => (await pool.query<{ checksum: string }>(`SELECT checksum FROM ${schema}.herald_definitions`)).rows;
    const exists = async () => (await pool.query(`SELECT 1 FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1 AND p.proname = 'herald_probe'`, [schema])).rowCount;
    const first = await recorded();
    expect(first).toHaveLength(1);
    await migrate(pool, schema);
    expect(await recorded()).toEqual(first);

    const probe = { name: 'herald_probe', sql: 'CREATE FUNCTION herald_probe() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;' };
    await migrate(pool, schema, migrations, [...definitions, probe]);
    expect(await exists()).toBe(1);
    expect((await recorded())[0]!.checksum).not.toBe(first[0]!.checksum);

    await migrate(pool, schema);
    expect(await exists()).toBe(0);
    expect(await recorded()).toEqual(first);
  });
});
