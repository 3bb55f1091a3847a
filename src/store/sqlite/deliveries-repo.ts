import { toDelivery, type DeliveryRow } from '../rows/record-rows.js';
import type { DeliveriesRepo, FailedDeliveryFilter, RetryableTargets } from '../port.js';
import { failedDeliveryFilter } from '../queries/browse-filters.js';
import { ListFilter, sqliteDialect } from '../queries/list-filter.js';
import type { SqliteDatabase } from './open-database.js';
import { limitedStatements } from './limited-statements.js';
import { CREDENTIAL_MARK, scrubRecipientSql } from '../queries/recipient-scrub.js';

const SCRUB = scrubRecipientSql('instr');

export { toDelivery, type DeliveryRow };

/**
 * Start-up's look for replies left behind: the succeeded runs wanting delivery finished since
 * `?`, read as a range of runs_to_deliver. Named: without statistics SQLite chose runs_status
 * (status = 'succeeded'), reading every succeeded run stored and sorting them, at every start.
 */
export const AWAITING_DELIVERY = `SELECT r.id FROM runs r INDEXED BY runs_to_deliver
     WHERE r.status = 'succeeded' AND r.reply IS NOT NULL AND r.finished_at >= ?
       AND r.deliver = 1
       AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.run_id = r.id)
     ORDER BY r.finished_at, r.rowid`;

/** The outbox table. Every state change after a claim is conditional on still holding the lease. */
export function sqliteDeliveriesRepo(db: SqliteDatabase): DeliveriesRepo {
  // one statement: a run's reply is added only when the run has no delivery yet (a heartbeat
  // reply has no run id, and `run_id = NULL` never matches, so it is always added); a fallback
  // only when the delivery it replaces has none yet; an id already stored is not added again (an
  // alert's notice has an id derived from the alert)
  const insert = db.prepare(
    `INSERT INTO deliveries (id, run_id, kind, channel, recipient, text, session_key, agent_id, status, attempts, parts_sent,
       last_error, next_attempt_at, lease_owner, lease_until, created_at, updated_at, delivered_at, fallback_of, trace_context)
     SELECT @id, @runId, @kind, @channel, @to, @text, @sessionKey, @agentId, @status, @attempts, @partsSent,
       @lastError, @nextAttemptAt, @leaseOwner, @leaseUntil, @createdAt, @updatedAt, @deliveredAt, @fallbackOf, @traceContext
     WHERE CASE WHEN @fallbackOf IS NULL THEN NOT EXISTS (SELECT 1 FROM deliveries WHERE run_id = @runId)
       ELSE NOT EXISTS (SELECT 1 FROM deliveries WHERE fallback_of = @fallbackOf) END
     ON CONFLICT (id) DO NOTHING`,
  );
  const awaiting = db.prepare<[number], { id: string }>(AWAITING_DELIVERY);
  const get = db.prepare<[string], DeliveryRow>('SELECT * FROM deliveries WHERE id = ?');
  const forRun = db.prepare<[string], DeliveryRow>('SELECT * FROM deliveries WHERE run_id = ? ORDER BY created_at, rowid');
  const listAll = db.prepare<[number], DeliveryRow>('SELECT * FROM deliveries ORDER BY created_at DESC, rowid DESC LIMIT ?');
  const listByStatus = db.prepare<[string, number], DeliveryRow>('SELECT * FROM deliveries WHERE status = ? ORDER BY created_at DESC, rowid DESC LIMIT ?');
  // the limit written into the SQL (see limitedStatements): the outbox asks on every pass
  const due = limitedStatements<[{ now: number }], { id: string }>(
    db,
    (limit) => `SELECT id FROM deliveries
     WHERE (status = 'pending' AND next_attempt_at <= @now) OR (status = 'sending' AND lease_until < @now)
     ORDER BY next_attempt_at, rowid LIMIT ${limit}`,
  );
  const nextDue = db.prepare<[], { at: number | null }>(
    `SELECT MIN(CASE status WHEN 'pending' THEN next_attempt_at ELSE lease_until END) AS at
     FROM deliveries WHERE status IN ('pending', 'sending')`,
  );
  // one statement: SQLite runs it under the write lock, so two claimers can never both win
  const claim = db.prepare<{ id: string; owner: string; now: number; leaseUntil: number }, DeliveryRow>(
    `UPDATE deliveries SET status = 'sending', lease_owner = @owner, lease_until = @leaseUntil, attempts = attempts + 1, updated_at = @now
     WHERE id = @id AND ((status = 'pending' AND next_attempt_at <= @now) OR (status = 'sending' AND lease_until < @now))
     RETURNING *`,
  );
  const partSent = db.prepare<{ id: string; owner: string; parts: number; now: number; leaseUntil: number }>(
    `UPDATE deliveries SET parts_sent = @parts, updated_at = @now, lease_until = MAX(COALESCE(lease_until, 0), @leaseUntil)
     WHERE id = @id AND lease_owner = @owner AND status = 'sending'`,
  );
  const delivered = db.prepare<{ id: string; owner: string; at: number }>(
    `UPDATE deliveries SET status = 'delivered', delivered_at = @at, updated_at = @at, lease_owner = NULL, lease_until = NULL, ${SCRUB}
     WHERE id = @id AND lease_owner = @owner AND status = 'sending'`,
  );
  const retryAt = db.prepare<{ id: string; owner: string; next: number; error: string; now: number }>(
    `UPDATE deliveries SET status = 'pending', next_attempt_at = @next, last_error = @error, updated_at = @now, lease_owner = NULL, lease_until = NULL
     WHERE id = @id AND lease_owner = @owner AND status = 'sending'`,
  );
  const failed = db.prepare<{ id: string; owner: string | null; error: string; at: number }>(
    `UPDATE deliveries SET status = 'failed', last_error = @error, updated_at = @at, lease_owner = NULL, lease_until = NULL, ${SCRUB}
     WHERE id = @id AND status IN ('pending', 'sending') AND (@owner IS NULL OR lease_owner = @owner)`,
  );
  const requeue = db.prepare<{ id: string; at: number }>(
    `UPDATE deliveries SET status = 'pending', attempts = 0, next_attempt_at = @at, updated_at = @at, retried_at = @at WHERE id = @id AND status = 'failed'`,
  );
  const abandon = db.prepare<{ id: string; at: number }>(
    `UPDATE deliveries SET status = 'abandoned', updated_at = @at, lease_owner = NULL, lease_until = NULL, ${SCRUB} WHERE id = @id AND status IN ('pending', 'failed')`,
  );
  const release = db.prepare<{ id: string; owner: string; at: number }>(
    `UPDATE deliveries SET status = 'pending', attempts = MAX(attempts - 1, 0), next_attempt_at = @at, updated_at = @at, lease_owner = NULL, lease_until = NULL
     WHERE id = @id AND lease_owner = @owner AND status = 'sending'`,
  );
  const expireCredentials = db.prepare<{ before: number; at: number; error: string }, DeliveryRow>(
    `UPDATE deliveries SET status = 'failed', last_error = @error, updated_at = @at, lease_owner = NULL, lease_until = NULL, ${SCRUB}
     WHERE status = 'pending' AND created_at < @before AND recipient LIKE '%${CREDENTIAL_MARK}%' RETURNING *`,
  );
  const requeueSending = db.prepare<{ at: number }>(
    `UPDATE deliveries SET status = 'pending', next_attempt_at = @at, updated_at = @at, lease_owner = NULL, lease_until = NULL WHERE status = 'sending'`,
  );

  /** a bulk change over the failed deliveries matching a filter, in one statement (one write lock) */
  const failedMatching = (filter: FailedDeliveryFilter, retryable: RetryableTargets | undefined, sql: (where: string) => string) => {
    const f = failedDeliveryFilter(new ListFilter(sqliteDialect, 'created_at', 'id'), filter, retryable);
    return { statement: db.prepare(sql(f.sql())), values: f.named };
  };

  return {
    async insert(d) {
      return insert.run({ ...d, fallbackOf: d.fallbackOf ?? null, traceContext: d.traceContext ?? null }).changes === 1;
    },
    async countFailed(filter, retryable) {
      const { statement, values } = failedMatching(filter, retryable, (where) => `SELECT COUNT(*) AS n FROM deliveries ${where}`);
      return (statement.get(values) as { n: number }).n;
    },
    async requeueFailed(filter, retryable, at) {
      const { statement, values } = failedMatching(
        filter,
        retryable,
        (where) => `UPDATE deliveries SET status = 'pending', attempts = 0, next_attempt_at = @at, updated_at = @at, retried_at = @at ${where}`,
      );
      return statement.run({ ...values, at }).changes;
    },
    async abandonFailed(filter, at) {
      const { statement, values } = failedMatching(filter, undefined, (where) => `UPDATE deliveries SET status = 'abandoned', updated_at = @at, ${SCRUB} ${where}`);
      return statement.run({ ...values, at }).changes;
    },
    async runsAwaitingDelivery(since) {
      return awaiting.all(since).map((r) => r.id);
    },
    async get(id) {
      const row = get.get(id);
      return row && toDelivery(row);
    },
    async forRun(runId) {
      return forRun.all(runId).map(toDelivery);
    },
    async list({ status, limit }) {
      return (status ? listByStatus.all(status, limit) : listAll.all(limit)).map(toDelivery);
    },
    async due(now, limit) {
      return due(limit).all({ now }).map((r) => r.id);
    },
    async nextDueAt() {
      return nextDue.get()?.at ?? undefined;
    },
    async claim(id, owner, now, leaseUntil) {
      const row = claim.get({ id, owner, now, leaseUntil });
      return row && toDelivery(row);
    },
    async partSent(id, owner, parts, leaseUntil = 0) {
      return partSent.run({ id, owner, parts, now: Date.now(), leaseUntil }).changes === 1;
    },
    async delivered(id, owner, at) {
      return delivered.run({ id, owner, at }).changes === 1;
    },
    async retryAt(id, owner, next, error) {
      return retryAt.run({ id, owner, next, error, now: Date.now() }).changes === 1;
    },
    async failed(id, owner, error, at, fallback) {
      // one transaction: the failure and its fallback are written together or not at all
      return db.transaction(() => {
        if (failed.run({ id, owner, error, at }).changes !== 1) return false;
        if (fallback) insert.run({ ...fallback, fallbackOf: fallback.fallbackOf ?? null, traceContext: fallback.traceContext ?? null });
        return true;
      })();
    },
    async requeue(id, at) {
      return requeue.run({ id, at }).changes === 1;
    },
    async abandon(id, at) {
      return abandon.run({ id, at }).changes === 1;
    },
    async release(id, owner, at) {
      release.run({ id, owner, at });
    },
    async expireCredentials(before, at, error) {
      return expireCredentials.all({ before, at, error }).map(toDelivery);
    },
    async requeueSending(at) {
      return requeueSending.run({ at }).changes;
    },
  };
}
