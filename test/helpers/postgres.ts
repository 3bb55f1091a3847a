import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * The PostgreSQL the tests use: HERALD_TEST_PG_URL, or the CI machine's (trust auth, database
 * `test`). There is no skip when it is away: a test needing it fails, saying so.
 */
export const PG_URL = process.env.HERALD_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** a schema name no other test (or test run) uses */
export function uniqueSchema(prefix = 'herald_test'): string {
  return `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
}

/** drops a test's schema and everything in it */
export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

/** fails loudly, naming what to do, when the test database does not answer */
export async function requirePostgres(): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (error) {
    throw new Error(
      `PostgreSQL is not reachable at ${PG_URL} (${(error as Error).message}). The PostgreSQL tests need it: start it, or set HERALD_TEST_PG_URL.`,
    );
  } finally {
    await client.end().catch(() => {});
  }
}
