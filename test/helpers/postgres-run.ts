import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { requirePostgres, testPgUrl } from './postgres.js';

/**
 * Global setup of the `postgres` test project, after `postgres-setup.ts` found or started the
 * server: checks PostgreSQL answers (the run fails loudly when it does not, never skips), names this run, and at the end drops every schema the run's
 * heralds created (`storageUnderTest()` names them after the run).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await requirePostgres();
  const run = `herald_e2e_${randomBytes(4).toString('hex')}`;
  process.env.HERALD_TEST_PG_RUN = run;
  project.provide('postgresRun' as never, run as never);
  return async () => {
    const client = new pg.Client({ connectionString: testPgUrl() });
    await client.connect();
    try {
      const { rows } = await client.query<{ nspname: string }>("SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1)", [`${run}_`]);
      for (const { nspname } of rows) await client.query(`DROP SCHEMA IF EXISTS ${nspname} CASCADE`);
    } finally {
      await client.end();
    }
  };
}
