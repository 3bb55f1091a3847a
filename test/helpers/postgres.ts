import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { DEFAULT_TEST_PG_URL } from './postgres-server.js';

/**
 * The PostgreSQL the tests use: HERALD_TEST_PG_URL, which the global setup (`postgres-setup.ts`)
 * sets to the machine's server or to an embedded one it started. There is no skip: a test
 * needing PostgreSQL fails when it does not answer, saying so.
 */
export const testPgUrl = (): string => process.env.HERALD_TEST_PG_URL ?? DEFAULT_TEST_PG_URL;
export const PG_URL = testPgUrl();

/** a schema name no other test (or test run) uses */
export function uniqueSchema(prefix = 'herald_test'): string {
  return `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
}

/** drops a test's schema and everything in it */
export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: testPgUrl() });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

/** fails loudly, naming what to do, when the test database does not answer */
export async function requirePostgres(): Promise<void> {
  const url = testPgUrl();
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (error) {
    throw new Error(
      `PostgreSQL is not reachable at ${url} (${(error as Error).message}). The PostgreSQL tests need it: start it, or set HERALD_TEST_PG_URL.`,
    );
  } finally {
    await client.end().catch(() => {});
  }
}
