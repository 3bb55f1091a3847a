import type pg from 'pg';

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
