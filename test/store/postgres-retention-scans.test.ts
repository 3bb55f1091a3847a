import { describe, expect, it } from 'vitest';
import { CLEAR_RETAINED } from '../../src/store/postgres/receipts-repo.js';
import { seededSchema } from '../helpers/postgres-scans.js';

/**
 * A retention pass (every few minutes, on every replica) finds the receipts whose payload is gone
 * among those retaining one, from an index: on a store of many receipts it does not read the
 * receipts table whole (it did, so each pass cost what receiptDays of requests held). Counted by
 * PostgreSQL for the transaction (pg_stat_xact_user_tables), with the table's statistics taken
 * as a running store's would be.
 */
const { scans } = seededSchema(
  'herald_retention_scans',
  'receipts',
  `INSERT INTO receipts (id, request_id, received_at, method, path, mapping_id, status, outcome, auth_method, body_bytes, latency_ms)
     SELECT 'rc-' || g, 'rq-' || g, g, 'POST', 'github', 'github', 202, 'run', 'token', 10, 1.0 FROM generate_series(1, 20000) g`,
);

const retaining = (id: string, until: number, payload: boolean) => ({
  text: `WITH receipt AS (
           INSERT INTO receipts (id, request_id, received_at, method, path, mapping_id, status, outcome, auth_method, body_bytes, latency_ms, retained_until)
           VALUES ($1, $1, 30000, 'POST', 'github', 'github', 202, 'run', 'token', 2, 1.0, $2) RETURNING id)
         INSERT INTO retained_payloads (receipt_id, path, body, bytes, headers, query, created_at, expires_at)
         SELECT id, 'github', '\\x7b7d'::bytea, 2, '{}'::jsonb, '{}'::jsonb, 30000, $2 FROM receipt WHERE $3`,
  values: [id, until, payload],
});

describe('postgres: a retention pass', () => {
  it('clears the receipts whose payload is gone without reading every receipt', async () => {
    const scanned = await scans(async (client) => {
      await client.query(retaining('kept', 90_000, true));
      await client.query(retaining('expired', 50_000, true));
      await client.query(retaining('deleted', 90_000, false));
      expect((await client.query(CLEAR_RETAINED, [60_000])).rowCount).toBe(2);
      const left = await client.query<{ id: string }>('SELECT id FROM receipts WHERE retained_until IS NOT NULL');
      expect(left.rows.map((r) => r.id)).toEqual(['kept']);
    });
    expect(scanned).toBe(0);
  });
});
