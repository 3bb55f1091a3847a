import type pg from 'pg';
import type { ToolCallRecord, ToolCallsRepo, ToolCallStatus } from '../port.js';
import { AWAITING_DECISION, LEASED_RUNNING, OPEN_TOOL_CALL, TOOL_CALL_COLUMNS, TOOL_CALL_READ_COLUMNS, toToolCall, toolCallValues, type ToolCallRow } from '../rows/tool-call-rows.js';
import { prepared, query, transaction, type Queryable } from './pg-pool.js';

const COLUMNS = TOOL_CALL_COLUMNS.join(', ');
const READ = TOOL_CALL_READ_COLUMNS.join(', ');
const TYPES = ['text', 'text', 'text', 'text', 'text', 'text', 'text', 'int', 'text', 'text', 'text', 'boolean',
  'text', 'text', 'text', 'bigint', 'bigint', 'bigint', 'bigint', 'boolean', 'bigint', 'jsonb', 'text', 'bigint'] as const satisfies { length: (typeof TOOL_CALL_COLUMNS)['length'] };

const toCall = (row: ToolCallRow) => toToolCall(row, (value) => value);

/**
 * The calls' rows from parallel arrays (`$<first>`...), in the order given: their seq follows it,
 * so a run's calls read back in the order they were made. `first`: the first array's placeholder number.
 */
export const toolCallRows = (first: number) =>
  `SELECT ${COLUMNS} FROM unnest(${TYPES.map((t, i) => `$${first + i}::${t}[]`).join(', ')}) WITH ORDINALITY AS c(${COLUMNS}, n) ORDER BY n`;

/** the calls as the arrays toolCallRows reads, one per column */
export const toolCallArrays = (calls: ToolCallRecord[]): unknown[][] => {
  const rows = calls.map((call) => toolCallValues(call, Boolean));
  return TYPES.map((_, i) => rows.map((row) => row[i]));
};

const INSERT = prepared('insert_tool_calls', `INSERT INTO tool_calls (${COLUMNS}) ${toolCallRows(1)}`);

/** a run's calls that still wait for a decision ($1: the run): it is paused while there is one, and queued again when the last is decided */
export const RUN_AWAITS_DECISION = `EXISTS (SELECT 1 FROM tool_calls WHERE owner_kind = 'run' AND owner_id = $1 AND approval_required AND ${AWAITING_DECISION})`;

/**
 * Tool calls over PostgreSQL. A decision locks its call (the row's update: of two deciders the
 * second finds it decided), then its run's row, and only then asks whether any call of the run
 * is still undecided, in a statement of its own (a snapshot taken once the lock is held): a pause
 * (runs-repo.ts) takes the run's row first too, so a decision and a pause never both miss each other.
 */
export function postgresToolCallsRepo(pool: pg.Pool): ToolCallsRepo {
  return {
    async insert(calls) {
      if (calls.length) await insertCalls(pool, calls);
    },
    async finish(id, end) {
      const { rowCount } = await query(
        pool,
        `UPDATE tool_calls SET status = $2, result = $3, error = $4, started_at = COALESCE($5, started_at), finished_at = $6, duration_ms = $7, content = $8::jsonb
         WHERE id = $1 AND ${OPEN_TOOL_CALL}`,
        [id, end.status, end.result ?? null, end.error ?? null, end.startedAt ?? null, end.finishedAt ?? null, end.durationMs ?? null, end.content?.length ? JSON.stringify(end.content) : null],
      );
      return rowCount === 1;
    },
    async setTask(id, task) {
      await query(pool, `UPDATE tool_calls SET task = $2::jsonb WHERE id = $1 AND status = 'running'`, [id, JSON.stringify(task)]);
    },
    async start(id, at, lease) {
      // an undecided call waiting for a person never starts: only an approved one (or one that needed none)
      await query(
        pool,
        `UPDATE tool_calls SET status = 'running', started_at = $2, lease_owner = COALESCE($3, lease_owner), lease_until = COALESCE($4, lease_until) WHERE id = $1
           AND (status = 'running' OR (status = 'waiting_approval' AND (approval IS NOT NULL OR NOT approval_required)))`,
        [id, at, lease?.owner ?? null, lease?.until ?? null],
      );
    },
    async renewLeases(owner, until) {
      await query(pool, `UPDATE tool_calls SET lease_until = $2 WHERE ${LEASED_RUNNING} AND lease_owner = $1`, [owner, until]);
    },
    async interruptLapsed(now, error, all = false) {
      // one statement: a row another sweep updated first is re-checked under its lock and left to it
      const { rowCount } = await query(
        pool,
        `UPDATE tool_calls SET status = 'interrupted', result = NULL, error = $2, finished_at = $1, duration_ms = $1 - started_at
         WHERE ${LEASED_RUNNING} AND ($3 OR lease_until < $1)`,
        [now, error, all],
      );
      return rowCount ?? 0;
    },
    async get(id) {
      const { rows } = await query<ToolCallRow>(pool, `SELECT ${READ} FROM tool_calls WHERE id = $1`, [id]);
      return rows[0] && toCall(rows[0]);
    },
    async ofOwner(kind, ownerId) {
      const { rows } = await query<ToolCallRow>(pool, `SELECT ${READ} FROM tool_calls WHERE owner_kind = $1 AND owner_id = $2 ORDER BY seq`, [kind, ownerId]);
      return rows.map(toCall);
    },
    async recentOf(kind, limit) {
      const { rows } = await query<ToolCallRow>(pool, `SELECT ${READ} FROM tool_calls WHERE owner_kind = $1 ORDER BY created_at DESC, seq DESC LIMIT $2`, [kind, limit]);
      return rows.map(toCall);
    },
    async statusCounts(kind, ownerIds) {
      const counts = new Map<string, Partial<Record<ToolCallStatus, number>>>();
      if (!ownerIds.length) return counts;
      const { rows } = await query<{ owner: string; status: ToolCallStatus; n: number }>(
        pool,
        'SELECT owner_id AS owner, status, COUNT(*)::int AS n FROM tool_calls WHERE owner_kind = $1 AND owner_id = ANY($2::text[]) GROUP BY owner_id, status',
        [kind, ownerIds],
      );
      for (const r of rows) counts.set(r.owner, { ...counts.get(r.owner), [r.status]: r.n });
      return counts;
    },
    async pendingApprovals(limit) {
      const { rows } = await query<ToolCallRow>(pool, `SELECT ${READ} FROM tool_calls WHERE ${AWAITING_DECISION} ORDER BY created_at, seq LIMIT $1`, [limit]);
      return rows.map(toCall);
    },
    async expiredApprovals(now, limit) {
      const { rows } = await query<ToolCallRow>(
        pool,
        `SELECT ${READ} FROM tool_calls WHERE ${AWAITING_DECISION} AND approval_expires_at <= $1 ORDER BY created_at, seq LIMIT $2`,
        [now, limit],
      );
      return rows.map(toCall);
    },
    decide(id, approval) {
      return transaction(pool, async (client) => {
        const { rows } = await query<ToolCallRow>(
          client,
          `UPDATE tool_calls SET approval = $2::jsonb, status = $3 WHERE id = $1 AND ${AWAITING_DECISION} RETURNING ${COLUMNS}`,
          [id, JSON.stringify(approval), approval.decision === 'approved' ? 'waiting_approval' : 'denied'],
        );
        const call = rows[0];
        if (!call) return undefined;
        if (call.owner_kind === 'run') {
          await query(client, 'SELECT 1 FROM runs WHERE id = $1 FOR UPDATE', [call.owner_id]);
          await query(client, `UPDATE runs SET status = 'queued' WHERE id = $1 AND status = 'waiting_approval' AND NOT ${RUN_AWAITS_DECISION}`, [call.owner_id]);
        }
        return toCall(call);
      });
    },
  };
}

export async function insertCalls(db: Queryable, calls: ToolCallRecord[]): Promise<void> {
  await query(db, INSERT, toolCallArrays(calls));
}
