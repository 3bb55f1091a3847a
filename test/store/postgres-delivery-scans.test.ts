import { describe, expect, it } from 'vitest';
import { DELIVERIES_OF_RUN } from '../../src/store/postgres/deliveries-repo.js';
import { seededSchema } from '../helpers/postgres-scans.js';

/**
 * A run's deliveries (asked before every run's reply is queued) are read from indexes, its first
 * and its fallbacks: on a store of many delivered replies the question does not read the
 * deliveries table whole (it did from migration 13 to 46, so every reply queued cost what the
 * outbox's history held). Counted by PostgreSQL for the transaction (pg_stat_xact_user_tables),
 * with the table's statistics taken as a running store's would be.
 */
const { scans } = seededSchema(
  'herald_delivery_scans',
  'deliveries',
  `INSERT INTO deliveries (id, run_id, kind, channel, recipient, text, session_key, agent_id, status, attempts, next_attempt_at, created_at, updated_at, delivered_at)
     SELECT 'd-' || g, 'run-' || g, 'run', 'telegram', 'someone', 'hello', 'hook:' || (g % 500), 'main', 'delivered', 1, g, g, g, g FROM generate_series(1, 20000) g`,
);

const delivery = (id: string, runId: string, at: number, fallbackOf: string | null) => ({
  text: `INSERT INTO deliveries (id, run_id, kind, channel, recipient, text, session_key, agent_id, status, next_attempt_at, created_at, updated_at, fallback_of)
         VALUES ($1, $2, 'run', 'telegram', 'someone', 'hi', 'hook:new', 'main', 'failed', $3, $3, $3, $4)`,
  values: [id, runId, at, fallbackOf],
});

describe("postgres: a run's deliveries", () => {
  it('are found without reading every delivery: its first, and the fallbacks after it', async () => {
    const scanned = await scans(async (client) => {
      // a run's reply failed, its fallback failed, and the fallback's fallback is on its way
      await client.query(delivery('first', 'run-new', 30_000, null));
      await client.query(delivery('second', 'run-new', 30_001, 'first'));
      await client.query(delivery('third', 'run-new', 30_002, 'second'));
      const ofRun = async (runId: string) => (await client.query<{ id: string }>(DELIVERIES_OF_RUN, [runId])).rows.map((r) => r.id);
      expect(await ofRun('run-new')).toEqual(['first', 'second', 'third']);
      expect(await ofRun('run-7')).toEqual(['d-7']);
      expect(await ofRun('run-none')).toEqual([]);
    });
    expect(scanned).toBe(0);
  });
});
