import { describe, expect, it } from 'vitest';
import { CLAIM_BEHIND } from '../../src/store/postgres/runs-repo.js';
import { seededSchema } from '../helpers/postgres-scans.js';

/**
 * A run's insert, its end and the claim of the runs behind it read its session's unfinished runs,
 * waiting-for-approval ones included, from an index: on a store of many finished runs none of them
 * reads the runs table whole, so a run's insert does not cost more with every run ever stored.
 */
const { scans } = seededSchema(
  'herald_scans',
  'runs',
  `INSERT INTO runs (id, status, agent_id, name, session_key, message, action, created_at, started_at, finished_at)
     SELECT 'done-' || g, 'succeeded', 'main', 'Hook', 'hook:' || (g % 5000), 'hello', '{}'::jsonb, g, g, g FROM generate_series(1, 20000) g`,
);

const run = (id: string, session: string, status = 'queued') => ({
  text: `INSERT INTO runs (id, status, agent_id, name, session_key, message, action, created_at) VALUES ($1, $2, 'main', 'Hook', $3, 'hi', '{}'::jsonb, 1) RETURNING waiting`,
  values: [id, status, session],
});

describe('postgres: a session\'s unfinished runs', () => {
  it('are found without reading every run: at the insert, at the end, and behind a claimed run', async () => {
    const scanned = await scans(async (client) => {
      // a paused run holds its session: the next run waits behind it
      expect((await client.query(run('paused', 'hook:7', 'waiting_approval'))).rows[0].waiting).toBe(false);
      expect((await client.query(run('behind', 'hook:7'))).rows[0].waiting).toBe(true);
      expect((await client.query(run('alone', 'hook:new'))).rows[0].waiting).toBe(false);
      // the paused run cancelled: the one behind it is released
      await client.query("UPDATE runs SET status = 'cancelled', finished_at = 2 WHERE id = 'paused'");
      expect((await client.query("SELECT waiting FROM runs WHERE id = 'behind'")).rows[0].waiting).toBe(false);
      // a claim of hook:new's runs behind seq 0: its one run
      const behind = await client.query({ text: CLAIM_BEHIND.text, values: ['me', 3, 60_000, 'hook:new', 0, 4] });
      expect(behind.rows.map((r: { id: string }) => r.id)).toEqual(['alone']);
    });
    expect(scanned).toBe(0);
  });
});
