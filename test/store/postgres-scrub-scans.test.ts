import { describe, expect, it } from 'vitest';
import { SCRUB_MADE_BETWEEN } from '../../src/store/postgres/runs-repo.js';
import { seededSchema } from '../helpers/postgres-scans.js';

/**
 * The sweep scrubbing the credential of the runs made in a minute past its life (every minute, on
 * every replica) reads that minute's runs, finished or not, from indexes: on a store of many runs
 * it does not read the runs table whole (it did, so each sweep cost what the history held).
 * Counted by PostgreSQL for the transaction (pg_stat_xact_user_tables), with the table's
 * statistics taken as a running store's would be.
 */
const action = (to: string) => JSON.stringify({ to, source: { mappingId: 'discord' } });

const { scans } = seededSchema(
  'herald_scrub_scans',
  'runs',
  `INSERT INTO runs (id, status, agent_id, name, session_key, message, action, created_at, started_at, finished_at)
     SELECT 'done-' || g, 'succeeded', 'main', 'Hook', 'hook:' || (g % 5000), 'hello', $1::jsonb, g, g, g FROM generate_series(1, 20000) g`,
  [action('interaction:app:1#token=old')],
);

const run = (id: string, status: string, createdAt: number) => ({
  text: `INSERT INTO runs (id, status, agent_id, name, session_key, message, action, created_at) VALUES ($1, $2, 'main', 'Hook', $1, 'hi', $3::jsonb, $4)`,
  values: [id, status, action('interaction:app:1#token=secret'), createdAt],
});

describe("postgres: the sweep of the runs' credentials", () => {
  it("reads the minute's runs, queued, running, paused or finished, without reading every run", async () => {
    const scanned = await scans(async (client) => {
      for (const [id, status] of [['queued', 'queued'], ['running', 'running'], ['paused', 'waiting_approval'], ['failed', 'failed']]) {
        await client.query(run(id!, status!, 60_000));
      }
      await client.query(run('later', 'queued', 120_000));
      expect((await client.query(SCRUB_MADE_BETWEEN, [60_000, 120_000])).rowCount).toBe(4);
      expect((await client.query(SCRUB_MADE_BETWEEN, [60_000, 120_000])).rowCount).toBe(0);
      const tos = await client.query<{ id: string; to: string }>("SELECT id, action->>'to' AS to FROM runs WHERE id IN ('queued', 'paused', 'later') ORDER BY id");
      expect(tos.rows).toEqual([
        { id: 'later', to: 'interaction:app:1#token=secret' },
        { id: 'paused', to: 'interaction:app:1#token=…' },
        { id: 'queued', to: 'interaction:app:1#token=…' },
      ]);
    });
    expect(scanned).toBe(0);
  });
});
