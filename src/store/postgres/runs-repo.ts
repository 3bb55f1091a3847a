import type pg from 'pg';
import type { RunCompletion, RunRecord, RunsRepo } from '../port.js';
import { parseRunAction, runActionSchema } from '../run-action.js';
import { enqueueEvent } from './events-repo.js';
import type { PgGroupCommit } from './group-commit.js';
import { query } from './pg-pool.js';
import { appendMessages } from './sessions-repo.js';

export interface RunRow {
  id: string;
  status: RunRecord['status'];
  agent_id: string;
  name: string;
  session_key: string;
  message: string;
  action: unknown;
  reply: string | null;
  error: string | null;
  model: string | null;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  rerun_of: string | null;
}

export const RUN_COLUMNS = 'id, status, agent_id, name, session_key, message, action, reply, error, created_at, started_at, finished_at, rerun_of, model';
const COLUMNS = RUN_COLUMNS;

export const toRun = (r: RunRow): RunRecord => ({
  id: r.id,
  status: r.status,
  agentId: r.agent_id,
  name: r.name,
  sessionKey: r.session_key,
  message: r.message,
  action: parseRunAction(r.id, r.action, { agentId: r.agent_id }),
  reply: r.reply,
  error: r.error,
  ...(r.model != null && { model: r.model }),
  createdAt: r.created_at,
  startedAt: r.started_at,
  finishedAt: r.finished_at,
  // only a re-run carries the link: a record without one reads as before
  ...(r.rerun_of !== null && { rerunOf: r.rerun_of }),
});

/**
 * FOR UPDATE SKIP LOCKED: replicas claiming at once take different runs and never wait on
 * each other. Only a session's oldest unfinished run is ready (the others are flagged
 * waiting by the triggers of the 'scale' migration, released one by one as the run ahead ends), so the
 * claim reads ready runs from runs_ready in seq order and stops at `limit`: the runs waiting
 * behind a busy session are never read. $1 owner, $2 now, $3 until, $4 limit.
 */
const CLAIM = `WITH candidates AS (
    SELECT r.id FROM runs r
    WHERE NOT r.waiting AND r.status IN ('queued', 'running') AND (r.status = 'queued' OR r.lease_until IS NULL OR r.lease_until < $2)
    ORDER BY r.seq LIMIT $4
    FOR UPDATE SKIP LOCKED)
  UPDATE runs SET status = 'running', started_at = $2, lease_owner = $1, lease_until = $3
  FROM candidates WHERE runs.id = candidates.id
  RETURNING ${COLUMNS.split(', ').map((c) => `runs.${c}`).join(', ')}, runs.seq`;

export function postgresRunsRepo(pool: pg.Pool, commits: PgGroupCommit): RunsRepo {
  return {
    async insert(run, claimedBy) {
      await query(
        pool,
        `INSERT INTO runs (id, status, agent_id, name, session_key, message, action, deliver, reply, error, created_at, started_at, finished_at, lease_owner, lease_until, rerun_of)
         VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
        [run.id, claimedBy ? 'running' : run.status, run.agentId, run.name, run.sessionKey, run.message, JSON.stringify(runActionSchema.parse(run.action)), run.action.deliver,
          run.reply, run.error, run.createdAt, claimedBy ? claimedBy.now : run.startedAt, run.finishedAt, claimedBy?.owner ?? null, claimedBy?.until ?? null, run.rerunOf ?? null],
      );
    },
    async get(id) {
      const { rows } = await query<RunRow>(pool, `SELECT ${COLUMNS} FROM runs WHERE id = $1`, [id]);
      return rows[0] && toRun(rows[0]);
    },
    /** see CLAIM */
    async claim({ owner, now, until }, limit) {
      const { rows } = await query<RunRow & { seq: number }>(pool, CLAIM, [owner, now, until, limit]);
      return rows.sort((a, b) => a.seq - b.seq).map(toRun);
    },
    async renew(ids, owner, until) {
      if (!ids.length) return [];
      const { rows } = await query<{ id: string }>(
        pool,
        // SKIP LOCKED: a renewal never waits on a row another transaction holds (a completion
        // grouped with others would wait on this one in turn: a deadlock); such a run is not renewed
        `UPDATE runs SET lease_until = $3 WHERE id IN
           (SELECT id FROM runs WHERE id = ANY($1::text[]) AND lease_owner = $2 AND status = 'running' ORDER BY id FOR UPDATE SKIP LOCKED)
         RETURNING id`,
        [ids, owner, until],
      );
      return rows.map((r) => r.id);
    },
    async release(ids, owner) {
      if (!ids.length) return;
      await query(
        pool,
        "UPDATE runs SET status = 'queued', lease_owner = NULL, lease_until = NULL WHERE id = ANY($1::text[]) AND lease_owner = $2 AND status = 'running'",
        [ids, owner],
      );
    },
    async cancel(id, at) {
      const { rowCount } = await query(pool, "UPDATE runs SET status = 'cancelled', finished_at = $2, lease_owner = NULL, lease_until = NULL WHERE id = $1 AND status = 'queued'", [id, at]);
      return rowCount === 1;
    },
    /** status, transcript and summary event commit together, or not at all (grouped with the completions beside it) */
    async complete(id, c) {
      return commits.run((client) => completeIn(client, id, c));
    },
    /** the claim after the completion, under the same savepoint: it sees the run the completion released */
    async completeAndClaim(id, c, { owner, now, until }) {
      return commits.run(async (client) => {
        if (!(await completeIn(client, id, c))) return { finished: false };
        const { rows } = await client.query<RunRow & { seq: number }>(CLAIM, [owner, now, until, 1]);
        return rows[0] ? { finished: true, next: toRun(rows[0]) } : { finished: true };
      });
    },
  };
}

async function completeIn(client: pg.PoolClient, id: string, c: RunCompletion): Promise<boolean> {
  const { rows } = await client.query<{ session_key: string }>(
    `UPDATE runs SET status = $2, reply = $3, error = $4, finished_at = $5, model = $6, lease_owner = NULL, lease_until = NULL
     WHERE id = $1 AND status IN ('queued', 'running') RETURNING session_key`,
    [id, c.status, c.reply ?? null, c.error ?? null, c.at, c.model ?? null],
  );
  if (!rows[0]) return false;
  await appendMessages(client, rows[0].session_key, c.transcript);
  await enqueueEvent(client, c.summary.session, c.summary.text, c.summary.maxPending);
  return true;
}
