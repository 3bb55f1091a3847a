import type pg from 'pg';
import { eventDetail, toFire, toSchedule, type FireRow, type ScheduleRow, type SchedulesRepo } from '../contracts/schedules-port.js';
import { fireFilter } from '../queries/fire-filter.js';
import { ListFilter, postgresDialect } from '../queries/list-filter.js';
import { enqueueEvent } from './events-repo.js';
import type { PgGroupCommit } from './group-commit.js';
import { query } from './pg-pool.js';

export function postgresSchedulesRepo(pool: pg.Pool, commits: PgGroupCommit): SchedulesRepo {
  const schedules = async (text: string, values: unknown[]) => (await query<ScheduleRow>(pool, text, values)).rows.map(toSchedule);
  return {
    async put(s, reschedule) {
      const [row] = await schedules(
        `INSERT INTO schedules (id, origin, job, enabled, next_due, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (id) DO UPDATE SET origin = EXCLUDED.origin, job = EXCLUDED.job, enabled = EXCLUDED.enabled, updated_at = EXCLUDED.updated_at,
           next_due = CASE WHEN $8 THEN EXCLUDED.next_due ELSE schedules.next_due END
         RETURNING *`,
        [s.id, s.origin, JSON.stringify(s.job), s.enabled, s.nextDue, s.createdAt, s.updatedAt, reschedule],
      );
      return row!;
    },
    async get(id) {
      const [row] = await schedules('SELECT * FROM schedules WHERE id = $1', [id]);
      return row;
    },
    async list() {
      return schedules('SELECT * FROM schedules ORDER BY id', []);
    },
    async delete(id) {
      return ((await query(pool, 'DELETE FROM schedules WHERE id = $1', [id])).rowCount ?? 0) === 1;
    },
    async nextDue() {
      const { rows } = await query<{ due: string | null }>(pool, 'SELECT min(next_due) AS due FROM schedules WHERE enabled AND next_due IS NOT NULL', []);
      return rows[0]?.due == null ? undefined : Number(rows[0].due);
    },
    async due(now, limit) {
      return schedules('SELECT * FROM schedules WHERE enabled AND next_due <= $1 ORDER BY next_due, id LIMIT $2', [now, limit]);
    },
    async claimFire(id, expected, next, fire) {
      // one statement: the row's update is the compare-and-set (a second claimer waits for the
      // first's row lock, then finds next_due moved and updates nothing); the fire is written with it
      const { rows } = await query<{ n: string }>(
        pool,
        `WITH moved AS (UPDATE schedules SET next_due = $3, updated_at = $4 WHERE id = $1 AND next_due = $2 AND enabled RETURNING id),
         fired AS (INSERT INTO schedule_fires (schedule_id, due_at, fired_at, outcome, run_id, detail)
           SELECT id, $2, $4, $5, $6, $7 FROM moved ON CONFLICT DO NOTHING)
         SELECT count(*) AS n FROM moved`,
        [id, expected, next, fire.firedAt, fire.outcome, fire.runId, fire.detail],
      );
      return Number(rows[0]!.n) === 1;
    },
    async recordFire(f) {
      const result = await query(pool, 'INSERT INTO schedule_fires (schedule_id, due_at, fired_at, outcome, run_id, detail) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING', [f.scheduleId, f.dueAt, f.firedAt, f.outcome, f.runId, f.detail]);
      return (result.rowCount ?? 0) === 1;
    },
    async settleFire(id, dueAt, outcome, detail = null) {
      const result = await query(pool, `UPDATE schedule_fires SET outcome = $1, detail = coalesce($2, detail) WHERE schedule_id = $3 AND due_at = $4 AND outcome = 'claimed'`, [outcome, detail, id, dueAt]);
      return (result.rowCount ?? 0) === 1;
    },
    async settleFireWithEvent(id, dueAt, { session, text, maxPending }) {
      // grouped like any wake: the event and the fire's mark share one commit. The fire's row is
      // locked first: a second maker (a replica retaking the same fire) waits for this commit,
      // then finds it no longer claimed and adds nothing
      return commits.run(async (client) => {
        const claimed = await client.query(`SELECT 1 FROM schedule_fires WHERE schedule_id = $1 AND due_at = $2 AND outcome = 'claimed' FOR UPDATE`, [id, dueAt]);
        if (!claimed.rowCount) return { made: false };
        const event = await enqueueEvent(client, session, text, maxPending);
        // a claim's own detail ('caught up at start') is kept, followed by the event it made
        await client.query(`UPDATE schedule_fires SET outcome = 'dispatched', detail = coalesce(detail || '; ' || $3, $3) WHERE schedule_id = $1 AND due_at = $2`, [id, dueAt, eventDetail(event)]);
        return { made: true, ...(event && { event }) };
      });
    },
    async fires(id, limit) {
      return (await query<FireRow>(pool, 'SELECT * FROM schedule_fires WHERE schedule_id = $1 ORDER BY due_at DESC LIMIT $2', [id, limit])).rows.map(toFire);
    },
    async listFires(q) {
      const f = fireFilter(new ListFilter(postgresDialect, 'due_at', 'schedule_id'), q);
      return (await query<FireRow>(pool, `SELECT * FROM schedule_fires ${f.sql()} ${f.order(q.limit)}`, f.values)).rows.map(toFire);
    },
    async unsettled(before, limit) {
      return (await query<FireRow>(pool, `SELECT * FROM schedule_fires WHERE outcome = 'claimed' AND fired_at <= $1 ORDER BY fired_at LIMIT $2`, [before, limit])).rows.map(toFire);
    },
  };
}
