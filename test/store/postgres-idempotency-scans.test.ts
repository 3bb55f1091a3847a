import { describe, expect, it } from 'vitest';
import { IN_PROGRESS_KEYS } from '../../src/store/postgres/idempotency-repo.js';
import { seededSchema } from '../helpers/postgres-scans.js';

/**
 * A start recovers the idempotency keys left in progress by the last process from those keys
 * alone: on a store keeping a day of done keys it reads none of them (every start did, before
 * migration 48).
 */
const { scans } = seededSchema(
  'herald_keys_scans',
  'idempotency_keys',
  `INSERT INTO idempotency_keys (scope, key, request_hash, status, run_id, response_status, response_body, created_at, locked_until, expires_at)
     SELECT 'POST /hooks/github', 'delivery-' || g, 'h', 'done', 'run-' || g, 202, '{}', g, g, g + 86400000 FROM generate_series(1, 100000) g`,
);

describe('postgres: the idempotency keys left in progress', () => {
  it('are recovered without reading every key kept', async () => {
    const scanned = await scans(async (client) => {
      await client.query(
        `INSERT INTO idempotency_keys (scope, key, request_hash, status, run_id, created_at, locked_until, expires_at)
         VALUES ('POST /hooks/agent', 'retry-me', 'h', 'in_progress', 'run-x', 1, 2, 86400001)`,
      );
      expect((await client.query<{ key: string }>(IN_PROGRESS_KEYS)).rows.map((r) => r.key)).toEqual(['retry-me']);
    });
    expect(scanned).toBe(0);
  });
});
