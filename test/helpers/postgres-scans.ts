import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { migrate } from '../../src/store/postgres/migrate.js';
import { dropSchema, PG_URL, requirePostgres, uniqueSchema } from './postgres.js';

/**
 * Runs `work` in a transaction on one connection of `pool`, search_path set to `schema`, rolled
 * back after, and returns how many sequential scans of `table` it made: PostgreSQL counts them for
 * the connection (pg_stat_xact_user_tables) until it reports them, so the count before the work
 * (what the connection did earlier and has not reported, a migration's) is taken off.
 */
export async function sequentialScans(pool: pg.Pool, schema: string, table: string, work: (client: pg.PoolClient) => Promise<void>): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(`SET LOCAL search_path TO ${schema}`);
    const scans = async () =>
      Number((await client.query<{ seq_scan: string }>('SELECT seq_scan FROM pg_stat_xact_user_tables WHERE schemaname = $1 AND relname = $2', [schema, table])).rows[0]!.seq_scan);
    const before = await scans();
    await work(client);
    return (await scans()) - before;
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
}

/**
 * For a test file: a schema of its own made by herald's migrations, `table` filled by `seed` (SQL
 * run with search_path set to the schema, `values` its parameters) and analysed, so the planner
 * chooses as on a running store of that size; dropped after the file. `scans(work)` counts the
 * sequential scans of `table` that `work` makes (sequentialScans).
 */
export function seededSchema(prefix: string, table: string, seed: string, values: unknown[] = []) {
  const pool = new pg.Pool({ connectionString: PG_URL, max: 2 });
  const schema = uniqueSchema(prefix);
  beforeAll(async () => {
    await requirePostgres();
    await migrate(pool, schema);
    const client = await pool.connect();
    try {
      await client.query(`SET search_path TO ${schema}`);
      await client.query(seed, values);
      await client.query(`ANALYZE ${table}`);
    } finally {
      client.release();
    }
  }, 60_000);
  afterAll(async () => {
    await pool.end();
    await dropSchema(schema);
  });
  return { scans: (work: (client: pg.PoolClient) => Promise<void>) => sequentialScans(pool, schema, table, work) };
}
