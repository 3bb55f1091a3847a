import type { ToolCallRecord, ToolCallsRepo, ToolCallStatus } from '../port.js';
import { AWAITING_DECISION, LEASED_RUNNING, OPEN_TOOL_CALL, TOOL_CALL_COLUMNS, toToolCall, toolCallValues, type ToolCallRow } from '../rows/tool-call-rows.js';
import type { GroupCommit } from './group-commit.js';
import { limitedStatements } from './limited-statements.js';
import type { SqliteDatabase } from './open-database.js';

const toCall = (row: ToolCallRow<string>) => toToolCall(row, JSON.parse);

/** inserts calls, inside a group commit's work (the checkpoint of a run's turn inserts them with its state) */
export function toolCallInserter(db: SqliteDatabase): (calls: ToolCallRecord[]) => void {
  const insert = db.prepare(`INSERT OR FAIL INTO tool_calls (${TOOL_CALL_COLUMNS.join(', ')}) VALUES (${TOOL_CALL_COLUMNS.map(() => '?').join(', ')})`);
  return (calls) => {
    for (const call of calls) insert.run(...toolCallValues(call, Number));
  };
}

/** a run's calls that still wait for a decision: it is paused while there is one, and queued again when the last is decided */
export const RUN_AWAITS_DECISION = `SELECT EXISTS (SELECT 1 FROM tool_calls WHERE owner_kind = 'run' AND owner_id = ? AND approval_required = 1 AND ${AWAITING_DECISION}) AS awaits`;

/** Tool calls over SQLite; every write is a group commit's work (the decision moves a run, counted with it). */
export function sqliteToolCallsRepo(db: SqliteDatabase, commits: GroupCommit): ToolCallsRepo {
  const insert = toolCallInserter(db);
  const get = db.prepare<[string], ToolCallRow<string>>('SELECT * FROM tool_calls WHERE id = ?');
  const ofOwner = db.prepare<[string, string], ToolCallRow<string>>('SELECT * FROM tool_calls WHERE owner_kind = ? AND owner_id = ? ORDER BY rowid');
  const recentOf = db.prepare<[string, number], ToolCallRow<string>>('SELECT * FROM tool_calls WHERE owner_kind = ? ORDER BY created_at DESC, rowid DESC LIMIT ?');
  // positional parameters: better-sqlite3 binds named ones by looking each up on an object, and every call ends here
  const finish = db.prepare<[string, string | null, string | null, number | null, number | null, number | null, string | null, string]>(
    `UPDATE OR FAIL tool_calls SET status = ?, result = ?, error = ?, started_at = COALESCE(?, started_at),
       finished_at = ?, duration_ms = ?, content = ? WHERE id = ? AND ${OPEN_TOOL_CALL}`,
  );
  const setTask = db.prepare<[string, string]>("UPDATE OR FAIL tool_calls SET task = ? WHERE id = ? AND status = 'running'");
  // an undecided call waiting for a person never starts: only an approved one (or one that needed none)
  const start = db.prepare<[number, string | null, number | null, string]>(
    `UPDATE OR FAIL tool_calls SET status = 'running', started_at = ?, lease_owner = COALESCE(?, lease_owner), lease_until = COALESCE(?, lease_until) WHERE id = ?
       AND (status = 'running' OR (status = 'waiting_approval' AND (approval IS NOT NULL OR approval_required = 0)))`,
  );
  const renew = db.prepare<[number, string]>(`UPDATE OR FAIL tool_calls INDEXED BY tool_calls_leased SET lease_until = ? WHERE ${LEASED_RUNNING} AND lease_owner = ?`);
  const lapsed = db.prepare<[string, number, number, number, number]>(
    `UPDATE OR FAIL tool_calls SET status = 'interrupted', result = NULL, error = ?, finished_at = ?, duration_ms = ? - started_at
       WHERE ${LEASED_RUNNING} AND (? = 1 OR lease_until < ?)`,
  );
  const pending = limitedStatements<[], ToolCallRow<string>>(db, (limit) => `SELECT * FROM tool_calls WHERE ${AWAITING_DECISION} ORDER BY created_at, rowid LIMIT ${limit}`);
  const expired = limitedStatements<[number], ToolCallRow<string>>(
    db,
    (limit) => `SELECT * FROM tool_calls WHERE ${AWAITING_DECISION} AND approval_expires_at <= ? ORDER BY created_at, rowid LIMIT ${limit}`,
  );
  const decide = db.prepare<[string, string, string], ToolCallRow<string>>(
    `UPDATE OR FAIL tool_calls SET approval = ?, status = ? WHERE id = ? AND ${AWAITING_DECISION} RETURNING *`,
  );
  const awaits = db.prepare<[string], { awaits: number }>(RUN_AWAITS_DECISION);
  const resume = db.prepare<[string]>("UPDATE OR FAIL runs SET status = 'queued' WHERE id = ? AND status = 'waiting_approval'");
  return {
    async insert(calls) {
      if (calls.length) await commits.run(() => insert(calls));
    },
    finish(id, end) {
      const content = end.content?.length ? JSON.stringify(end.content) : null;
      return commits.run(
        () => finish.run(end.status, end.result ?? null, end.error ?? null, end.startedAt ?? null, end.finishedAt ?? null, end.durationMs ?? null, content, id).changes === 1,
      );
    },
    async setTask(id, task) {
      await commits.run(() => setTask.run(JSON.stringify(task), id));
    },
    async start(id, at, lease) {
      await commits.run(() => start.run(at, lease?.owner ?? null, lease?.until ?? null, id));
    },
    async renewLeases(owner, until) {
      await commits.run(() => renew.run(until, owner));
    },
    interruptLapsed(now, error, all = false) {
      return commits.run(() => lapsed.run(error, now, now, all ? 1 : 0, now).changes);
    },
    async get(id) {
      const row = get.get(id);
      return row && toCall(row);
    },
    async ofOwner(kind, ownerId) {
      return ofOwner.all(kind, ownerId).map(toCall);
    },
    async recentOf(kind, limit) {
      return recentOf.all(kind, limit).map(toCall);
    },
    async statusCounts(kind, ownerIds) {
      const counts = new Map<string, Partial<Record<ToolCallStatus, number>>>();
      if (!ownerIds.length) return counts;
      const rows = db
        .prepare(`SELECT owner_id AS owner, status, COUNT(*) AS n FROM tool_calls WHERE owner_kind = ? AND owner_id IN (${ownerIds.map(() => '?').join(', ')}) GROUP BY owner_id, status`)
        .all(kind, ...ownerIds) as { owner: string; status: ToolCallStatus; n: number }[];
      for (const r of rows) counts.set(r.owner, { ...counts.get(r.owner), [r.status]: r.n });
      return counts;
    },
    async pendingApprovals(limit) {
      return pending(limit).all().map(toCall);
    },
    async expiredApprovals(now, limit) {
      return expired(limit).all(now).map(toCall);
    },
    // one work of the group commit: the decision and the run's return to the queue commit together
    decide(id, approval) {
      return commits.run(() => {
        const row = decide.get(JSON.stringify(approval), approval.decision === 'approved' ? 'waiting_approval' : 'denied', id);
        if (!row) return undefined;
        if (row.owner_kind === 'run' && !awaits.get(row.owner_id)!.awaits && resume.run(row.owner_id).changes === 1) {
          commits.count('runs:waiting_approval', -1);
          commits.count('runs:queued', 1);
        }
        return toCall(row);
      });
    },
  };
}
