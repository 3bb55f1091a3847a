import { toDelivery, type DeliveryRow } from '../rows/record-rows.js';
import type pg from 'pg';
import type { DeliveriesRepo, FailedDeliveryFilter, RetryableTargets } from '../port.js';
import { failedDeliveryFilter } from '../queries/browse-filters.js';
import { ListFilter, postgresDialect } from '../queries/list-filter.js';
import { query } from './pg-pool.js';
import { CREDENTIAL_MARK, scrubRecipientSql } from '../queries/recipient-scrub.js';

const SCRUB = scrubRecipientSql('strpos');

export { toDelivery, type DeliveryRow };

export const DELIVERY_COLUMNS = `id, run_id, kind, channel, recipient, text, session_key, agent_id, status, attempts, parts_sent, last_error,
  next_attempt_at, lease_owner, lease_until, created_at, updated_at, delivered_at, fallback_of, retried_at, trace_context`;
const DUE = "((status = 'pending' AND next_attempt_at <= $2) OR (status = 'sending' AND lease_until < $2))";

/** the replies a start-up delivers: succeeded runs to deliver, finished since `$1`, without a delivery (a range of runs_to_deliver) */
export const AWAITING_DELIVERY = `SELECT r.id FROM runs r
  WHERE r.status = 'succeeded' AND r.reply IS NOT NULL AND r.finished_at >= $1 AND r.deliver
    AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.run_id = r.id)
  ORDER BY r.finished_at, r.seq`;

/**
 * A run's deliveries, oldest first: its first (deliveries_one_per_run) and its fallbacks
 * (deliveries_fallback_run, migration 46) asked for apart, as each index holds them; `run_id = $1`
 * alone implies neither index's condition and read the whole table. $1 the run.
 */
export const DELIVERIES_OF_RUN = `SELECT ${DELIVERY_COLUMNS} FROM (
    SELECT ${DELIVERY_COLUMNS}, seq FROM deliveries WHERE run_id = $1 AND fallback_of IS NULL
    UNION ALL SELECT ${DELIVERY_COLUMNS}, seq FROM deliveries WHERE run_id = $1 AND fallback_of IS NOT NULL) d
  ORDER BY created_at, seq`;

/** The outbox table. Every state change after a claim is conditional on still holding the lease. */
export function postgresDeliveriesRepo(pool: pg.Pool): DeliveriesRepo {
  const changed = async (text: string, values: unknown[]) => ((await query(pool, text, values)).rowCount ?? 0) === 1;
  /** a bulk change over the failed deliveries matching a filter, in one statement; `at` is its last value */
  const failedMatching = async (filter: FailedDeliveryFilter, retryable: RetryableTargets | undefined, sql: (where: string, at: string) => string, at?: number) => {
    const f = failedDeliveryFilter(new ListFilter(postgresDialect, 'created_at', 'id'), filter, retryable);
    const atParam = at === undefined ? '' : f.bind(at);
    return query<{ n: number }>(pool, sql(f.sql(), atParam), f.values);
  };
  return {
    async insert(d) {
      // the partial unique indexes decide between two replicas: one reply per run (its first
      // delivery), one fallback per failed delivery; an id already
      // stored is not added again (an alert's notice has an id derived from the alert)
      return changed(
        `INSERT INTO deliveries (${DELIVERY_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, NULL, $20)
         ON CONFLICT DO NOTHING`,
        [d.id, d.runId, d.kind, d.channel, d.to, d.text, d.sessionKey, d.agentId, d.status, d.attempts, d.partsSent, d.lastError,
          d.nextAttemptAt, d.leaseOwner, d.leaseUntil, d.createdAt, d.updatedAt, d.deliveredAt, d.fallbackOf ?? null, d.traceContext ?? null],
      );
    },
    async countFailed(filter, retryable) {
      const { rows } = await failedMatching(filter, retryable, (where) => `SELECT COUNT(*)::int AS n FROM deliveries ${where}`);
      return rows[0]?.n ?? 0;
    },
    async requeueFailed(filter, retryable, at) {
      const result = await failedMatching(
        filter,
        retryable,
        (where, p) => `UPDATE deliveries SET status = 'pending', attempts = 0, next_attempt_at = ${p}, updated_at = ${p}, retried_at = ${p} ${where}`,
        at,
      );
      return result.rowCount ?? 0;
    },
    async abandonFailed(filter, at) {
      const result = await failedMatching(filter, undefined, (where, p) => `UPDATE deliveries SET status = 'abandoned', updated_at = ${p}, ${SCRUB} ${where}`, at);
      return result.rowCount ?? 0;
    },
    async runsAwaitingDelivery(since) {
      const { rows } = await query<{ id: string }>(pool, AWAITING_DELIVERY, [since]);
      return rows.map((r) => r.id);
    },
    async get(id) {
      const { rows } = await query<DeliveryRow>(pool, `SELECT ${DELIVERY_COLUMNS} FROM deliveries WHERE id = $1`, [id]);
      return rows[0] && toDelivery(rows[0]);
    },
    async forRun(runId) {
      const { rows } = await query<DeliveryRow>(pool, DELIVERIES_OF_RUN, [runId]);
      return rows.map(toDelivery);
    },
    async list({ status, limit }) {
      const { rows } = status
        ? await query<DeliveryRow>(pool, `SELECT ${DELIVERY_COLUMNS} FROM deliveries WHERE status = $1 ORDER BY created_at DESC, seq DESC LIMIT $2`, [status, limit])
        : await query<DeliveryRow>(pool, `SELECT ${DELIVERY_COLUMNS} FROM deliveries ORDER BY created_at DESC, seq DESC LIMIT $1`, [limit]);
      return rows.map(toDelivery);
    },
    async due(now, limit) {
      const { rows } = await query<{ id: string }>(
        pool,
        `SELECT id FROM deliveries WHERE ${DUE.replaceAll('$2', '$1')} ORDER BY next_attempt_at, seq LIMIT $2`,
        [now, limit],
      );
      return rows.map((r) => r.id);
    },
    async nextDueAt() {
      const { rows } = await query<{ at: number | null }>(
        pool,
        `SELECT MIN(CASE status WHEN 'pending' THEN next_attempt_at ELSE lease_until END) AS at
         FROM deliveries WHERE status IN ('pending', 'sending')`,
      );
      return rows[0]?.at ?? undefined;
    },
    async claim(id, owner, now, leaseUntil) {
      // SKIP LOCKED: a replica claiming the same row at this instant is not waited for; it has it
      const { rows } = await query<DeliveryRow>(
        pool,
        `UPDATE deliveries SET status = 'sending', lease_owner = $3, lease_until = $4, attempts = attempts + 1, updated_at = $2
         WHERE id = (SELECT id FROM deliveries WHERE id = $1 AND ${DUE} FOR UPDATE SKIP LOCKED)
         RETURNING ${DELIVERY_COLUMNS}`,
        [id, now, owner, leaseUntil],
      );
      return rows[0] && toDelivery(rows[0]);
    },
    partSent(id, owner, parts, leaseUntil = 0) {
      return changed(
        `UPDATE deliveries SET parts_sent = $3, updated_at = $4, lease_until = GREATEST(COALESCE(lease_until, 0), $5)
         WHERE id = $1 AND lease_owner = $2 AND status = 'sending'`,
        [id, owner, parts, Date.now(), leaseUntil],
      );
    },
    delivered(id, owner, at) {
      return changed(
        `UPDATE deliveries SET status = 'delivered', delivered_at = $3, updated_at = $3, lease_owner = NULL, lease_until = NULL, ${SCRUB}
         WHERE id = $1 AND lease_owner = $2 AND status = 'sending'`,
        [id, owner, at],
      );
    },
    retryAt(id, owner, next, error) {
      return changed(
        `UPDATE deliveries SET status = 'pending', next_attempt_at = $3, last_error = $4, updated_at = $5, lease_owner = NULL, lease_until = NULL
         WHERE id = $1 AND lease_owner = $2 AND status = 'sending'`,
        [id, owner, next, error, Date.now()],
      );
    },
    async failed(id, owner, error, at, fallback) {
      const fail = `UPDATE deliveries SET status = 'failed', last_error = $3, updated_at = $4, lease_owner = NULL, lease_until = NULL, ${SCRUB}
         WHERE id = $1 AND status IN ('pending', 'sending') AND ($2::text IS NULL OR lease_owner = $2)`;
      if (!fallback) return changed(fail, [id, owner, error, at]);
      // one statement: the failure and its fallback are written together or not at all
      const f = fallback;
      const { rows } = await query<{ n: number }>(
        pool,
        `WITH failed AS (${fail} RETURNING id),
           added AS (INSERT INTO deliveries (${DELIVERY_COLUMNS})
             SELECT $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::int, $15::int, $16, $17::bigint, $18, $19::bigint, $20::bigint, $21::bigint, $22::bigint, id, NULL, $23 FROM failed
             ON CONFLICT DO NOTHING)
         SELECT COUNT(*)::int AS n FROM failed`,
        [id, owner, error, at, f.id, f.runId, f.kind, f.channel, f.to, f.text, f.sessionKey, f.agentId, f.status, f.attempts, f.partsSent, f.lastError,
          f.nextAttemptAt, f.leaseOwner, f.leaseUntil, f.createdAt, f.updatedAt, f.deliveredAt, f.traceContext ?? null],
      );
      return rows[0]?.n === 1;
    },
    requeue(id, at) {
      return changed("UPDATE deliveries SET status = 'pending', attempts = 0, next_attempt_at = $2, updated_at = $2, retried_at = $2 WHERE id = $1 AND status = 'failed'", [id, at]);
    },
    async abandon(id, at) {
      const { rowCount } = await query(
        pool,
        `UPDATE deliveries SET status = 'abandoned', updated_at = $2, lease_owner = NULL, lease_until = NULL, ${SCRUB} WHERE id = $1 AND status IN ('pending', 'failed')`,
        [id, at],
      );
      return rowCount === 1;
    },
    async release(id, owner, at) {
      await query(
        pool,
        `UPDATE deliveries SET status = 'pending', attempts = GREATEST(attempts - 1, 0), next_attempt_at = $3, updated_at = $3, lease_owner = NULL, lease_until = NULL
         WHERE id = $1 AND lease_owner = $2 AND status = 'sending'`,
        [id, owner, at],
      );
    },
    async expireCredentials(before, at, error) {
      const { rows } = await query<DeliveryRow>(
        pool,
        `UPDATE deliveries SET status = 'failed', last_error = $3, updated_at = $2, lease_owner = NULL, lease_until = NULL, ${SCRUB}
         WHERE status = 'pending' AND created_at < $1 AND recipient LIKE '%${CREDENTIAL_MARK}%' RETURNING ${DELIVERY_COLUMNS}`,
        [before, at, error],
      );
      return rows.map(toDelivery);
    },
    async requeueSending(at) {
      const { rowCount } = await query(
        pool,
        `UPDATE deliveries SET status = 'pending', next_attempt_at = $1, updated_at = $1, lease_owner = NULL, lease_until = NULL WHERE status = 'sending'`,
        [at],
      );
      return rowCount ?? 0;
    },
  };
}
