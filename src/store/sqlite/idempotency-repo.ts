import { toIdempotencyRecord as toRecord, type IdempotencyRow as Row } from '../rows/record-rows.js';
import type { IdempotencyClaim, IdempotencyRecord, IdempotencyRepo } from '../port.js';
import type { EventAppender } from './events-repo.js';
import type { GroupCommit } from './group-commit.js';
import type { SqliteDatabase } from './open-database.js';


/** the keys whose request was being worked on when the last process stopped (a start's recovery): from idempotency_keys_in_progress (migration 56) */
export const IN_PROGRESS_KEYS = "SELECT * FROM idempotency_keys WHERE status = 'in_progress'";

/** `appender`: the database's one (sqlite-store.ts), for the event of an idempotent wake */
export function sqliteIdempotencyRepo(db: SqliteDatabase, commits: GroupCommit, appender: EventAppender): IdempotencyRepo {
  const get = db.prepare<[string, string], Row>('SELECT * FROM idempotency_keys WHERE scope = ? AND key = ?');
  const remove = db.prepare<[string, string]>('DELETE FROM idempotency_keys WHERE scope = ? AND key = ?');
  const insert = db.prepare(
    `INSERT INTO idempotency_keys (scope, key, request_hash, status, run_id, response_status, response_body, created_at, locked_until, expires_at)
     VALUES (@scope, @key, @requestHash, 'in_progress', @runId, NULL, NULL, @createdAt, @lockedUntil, @expiresAt)`,
  );
  const insertDone = db.prepare(
    `INSERT INTO idempotency_keys (scope, key, request_hash, status, run_id, response_status, response_body, created_at, locked_until, expires_at)
     VALUES (@scope, @key, @requestHash, 'done', @runId, @responseStatus, @responseBody, @createdAt, @lockedUntil, @expiresAt)`,
  );
  const release = db.prepare<[string, string]>("DELETE FROM idempotency_keys WHERE scope = ? AND key = ? AND status = 'in_progress'");
  const reclaim = db.prepare<[string, number, string, string]>('UPDATE idempotency_keys SET request_hash = ?, locked_until = ? WHERE scope = ? AND key = ?');
  const complete = db.prepare<[number, string | null, string, string]>(
    "UPDATE idempotency_keys SET status = 'done', response_status = ?, response_body = ? WHERE scope = ? AND key = ?",
  );
  const runExists = db.prepare<[string], { one: number }>('SELECT 1 AS one FROM runs WHERE id = ?');
  const inProgress = db.prepare<[], Row>(IN_PROGRESS_KEYS);
  const prune = db.prepare<[number, number]>(
    "DELETE FROM idempotency_keys WHERE expires_at <= ? AND (status = 'done' OR locked_until <= ?)",
  );

  // a group commit's work (group-commit.ts: atomic, in a BEGIN IMMEDIATE transaction): the read and
  // the write happen under one write lock, so of two racing claims one wins, and the claims,
  // completions and releases of a turn's requests share one commit instead of one each
  const claim = (record: IdempotencyRecord, now: number): IdempotencyClaim => {
    let row = get.get(record.scope, record.key);
    const stale = row !== undefined && row.status === 'in_progress' && row.locked_until <= now;
    if (row && row.expires_at <= now && (row.status === 'done' || stale)) {
      remove.run(record.scope, record.key);
      row = undefined;
    }
    if (!row) {
      insert.run(record);
      return { type: 'claimed', record: { ...record, status: 'in_progress', responseStatus: null, responseBody: null } };
    }
    if (stale) {
      // the process holding it died: the run row is the commit point of an agent request
      if (runExists.get(row.run_id)) {
        const body = JSON.stringify({ ok: true, runId: row.run_id });
        complete.run(202, body, row.scope, row.key);
        return { type: 'existing', record: { ...toRecord(row), status: 'done', responseStatus: 202, responseBody: body } };
      }
      // nothing of it was stored: the key is free again, for whatever request comes with it now
      reclaim.run(record.requestHash, record.lockedUntil, row.scope, row.key);
      return { type: 'claimed', record: { ...toRecord(row), requestHash: record.requestHash, lockedUntil: record.lockedUntil } };
    }
    return { type: 'existing', record: toRecord(row) };
  };

  // the run row is the commit point of an agent request: stored, the request was answered 202
  const recoverInProgress = db.transaction((): number => {
    const rows = inProgress.all();
    for (const row of rows) {
      if (runExists.get(row.run_id)) complete.run(202, JSON.stringify({ ok: true, runId: row.run_id }), row.scope, row.key);
      else remove.run(row.scope, row.key);
    }
    return rows.length;
  });

  return {
    claim(record, now) {
      return commits.run(() => claim(record, now));
    },
    complete(scope, key, response) {
      return commits.run(() => void complete.run(response.status, response.body, scope, key));
    },
    async completeWithEvent(scope, key, response, event) {
      return commits.run(() => {
        const outcome = appender.append(event.session, event.text, event.maxPending) ? 'queued' : 'coalesced';
        const answer = response(outcome);
        complete.run(answer.status, answer.body, scope, key);
        return outcome;
      });
    },
    insertWithEvent(record, response, event) {
      return commits.run(() => {
        if (get.get(record.scope, record.key)) return undefined;
        const outcome = appender.append(event.session, event.text, event.maxPending) ? 'queued' : 'coalesced';
        const answer = response(outcome);
        insertDone.run({ ...record, responseStatus: answer.status, responseBody: answer.body });
        return outcome;
      });
    },
    release(scope, key) {
      return commits.run(() => void release.run(scope, key));
    },
    async recoverInProgress() {
      return recoverInProgress.immediate();
    },
    async prune(now) {
      return prune.run(now, now).changes;
    },
  };
}
