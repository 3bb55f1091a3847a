import { toIdempotencyRecord as toRecord, type IdempotencyRow as Row } from '../rows/record-rows.js';
import type pg from 'pg';
import type { IdempotencyClaim, IdempotencyRecord, IdempotencyRepo } from '../port.js';
import { enqueueEvent } from './events-repo.js';
import type { PgGroupCommit } from './group-commit.js';
import { query, transaction } from './pg-pool.js';


const INSERT = `INSERT INTO idempotency_keys (scope, key, request_hash, status, run_id, response_status, response_body, created_at, locked_until, expires_at)
  VALUES ($1, $2, $3, 'in_progress', $4, NULL, NULL, $5, $6, $7)`;
const insertValues = (r: IdempotencyRecord) => [r.scope, r.key, r.requestHash, r.runId, r.createdAt, r.lockedUntil, r.expiresAt];
const claimed = (record: IdempotencyRecord): IdempotencyClaim => ({ type: 'claimed', record: { ...record, status: 'in_progress', responseStatus: null, responseBody: null } });

/** the keys whose request was being worked on when the last process stopped (a start's recovery): from idempotency_keys_in_progress (migration 48) */
export const IN_PROGRESS_KEYS = "SELECT * FROM idempotency_keys WHERE status = 'in_progress' FOR UPDATE";

/** The primary key decides which of two replicas claims a key; the slow path runs under the row's lock. */
export function postgresIdempotencyRepo(pool: pg.Pool, commits: PgGroupCommit): IdempotencyRepo {
  return {
    async claim(record, now) {
      // the common case, one statement: a key nobody holds
      const fresh = await query(pool, `${INSERT} ON CONFLICT (scope, key) DO NOTHING`, insertValues(record));
      if (fresh.rowCount === 1) return claimed(record);
      return transaction(pool, async (client): Promise<IdempotencyClaim> => {
        const { rows } = await client.query<Row>('SELECT * FROM idempotency_keys WHERE scope = $1 AND key = $2 FOR UPDATE', [record.scope, record.key]);
        const row = rows[0];
        if (!row) {
          // deleted (pruned, released) since the insert above: take it now
          const again = await client.query(`${INSERT} ON CONFLICT (scope, key) DO NOTHING`, insertValues(record));
          if (again.rowCount === 1) return claimed(record);
          const { rows: now } = await client.query<Row>('SELECT * FROM idempotency_keys WHERE scope = $1 AND key = $2', [record.scope, record.key]);
          return { type: 'existing', record: toRecord(now[0]!) };
        }
        const stale = row.status === 'in_progress' && row.locked_until <= now;
        if (row.expires_at <= now && (row.status === 'done' || stale)) {
          await client.query('DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2', [record.scope, record.key]);
          await client.query(INSERT, insertValues(record));
          return claimed(record);
        }
        if (stale) {
          // the replica holding it died: the run row is the commit point of an agent request
          const run = await client.query('SELECT 1 FROM runs WHERE id = $1', [row.run_id]);
          if (run.rowCount) {
            const body = JSON.stringify({ ok: true, runId: row.run_id });
            await client.query("UPDATE idempotency_keys SET status = 'done', response_status = 202, response_body = $3 WHERE scope = $1 AND key = $2", [row.scope, row.key, body]);
            return { type: 'existing', record: { ...toRecord(row), status: 'done', responseStatus: 202, responseBody: body } };
          }
          // nothing of it was stored: the key is free again, for whatever request comes with it now
          await client.query('UPDATE idempotency_keys SET request_hash = $3, locked_until = $4 WHERE scope = $1 AND key = $2', [row.scope, row.key, record.requestHash, record.lockedUntil]);
          return { type: 'claimed', record: { ...toRecord(row), requestHash: record.requestHash, lockedUntil: record.lockedUntil } };
        }
        return { type: 'existing', record: toRecord(row) };
      });
    },
    async complete(scope, key, response) {
      await query(pool, "UPDATE idempotency_keys SET status = 'done', response_status = $3, response_body = $4 WHERE scope = $1 AND key = $2", [scope, key, response.status, response.body]);
    },
    async completeWithEvent(scope, key, response, event) {
      // grouped like any wake: the event and the key's answer share one commit
      return commits.run(async (client) => {
        const outcome = (await enqueueEvent(client, event.session, event.text, event.maxPending)) ? 'queued' : 'coalesced';
        const answer = response(outcome);
        await client.query("UPDATE idempotency_keys SET status = 'done', response_status = $3, response_body = $4 WHERE scope = $1 AND key = $2", [scope, key, answer.status, answer.body]);
        return outcome;
      });
    },
    async insertWithEvent(record, response, event) {
      // the key taken first (held: nothing more), then the event and the key's answer, in one commit
      return commits.run(async (client) => {
        const fresh = await client.query(`${INSERT} ON CONFLICT (scope, key) DO NOTHING`, insertValues({ ...record, status: 'in_progress', responseStatus: null, responseBody: null }));
        if (fresh.rowCount !== 1) return undefined;
        const outcome = (await enqueueEvent(client, event.session, event.text, event.maxPending)) ? 'queued' : 'coalesced';
        const answer = response(outcome);
        await client.query("UPDATE idempotency_keys SET status = 'done', response_status = $3, response_body = $4 WHERE scope = $1 AND key = $2", [record.scope, record.key, answer.status, answer.body]);
        return outcome;
      });
    },
    async release(scope, key) {
      await query(pool, "DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2 AND status = 'in_progress'", [scope, key]);
    },
    async recoverInProgress() {
      return transaction(pool, async (client) => {
        const { rows } = await client.query<Row>(IN_PROGRESS_KEYS);
        for (const row of rows) {
          // the run row is the commit point of an agent request: stored, the request was answered 202
          const run = await client.query('SELECT 1 FROM runs WHERE id = $1', [row.run_id]);
          if (run.rowCount) {
            await client.query("UPDATE idempotency_keys SET status = 'done', response_status = 202, response_body = $3 WHERE scope = $1 AND key = $2", [row.scope, row.key, JSON.stringify({ ok: true, runId: row.run_id })]);
          } else await client.query('DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2', [row.scope, row.key]);
        }
        return rows.length;
      });
    },
    async prune(now) {
      const { rowCount } = await query(pool, "DELETE FROM idempotency_keys WHERE expires_at <= $1 AND (status = 'done' OR locked_until <= $1)", [now]);
      return rowCount ?? 0;
    },
  };
}
