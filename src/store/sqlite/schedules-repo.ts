import { eventDetail, toFire, toSchedule, type FireRow, type ScheduleRow, type SchedulesRepo } from '../contracts/schedules-port.js';
import { fireFilter } from '../queries/fire-filter.js';
import { ListFilter, sqliteDialect } from '../queries/list-filter.js';
import type { EventAppender } from './events-repo.js';
import type { GroupCommit } from './group-commit.js';
import type { SqliteDatabase } from './open-database.js';

/** `appender`: the database's one (sqlite-store.ts), for the event of a main-session fire */
export function sqliteSchedulesRepo(db: SqliteDatabase, commits: GroupCommit, appender: EventAppender): SchedulesRepo {
  const put = db.prepare<Record<string, unknown>, ScheduleRow>(
    `INSERT INTO schedules (id, origin, job, enabled, next_due, created_at, updated_at)
     VALUES (@id, @origin, @job, @enabled, @nextDue, @createdAt, @updatedAt)
     ON CONFLICT (id) DO UPDATE SET origin = excluded.origin, job = excluded.job, enabled = excluded.enabled, updated_at = excluded.updated_at,
       next_due = CASE WHEN @reschedule THEN excluded.next_due ELSE schedules.next_due END
     RETURNING *`,
  );
  const get = db.prepare<[string], ScheduleRow>('SELECT * FROM schedules WHERE id = ?');
  const list = db.prepare<[], ScheduleRow>('SELECT * FROM schedules ORDER BY id');
  const remove = db.prepare<[string]>('DELETE FROM schedules WHERE id = ?');
  const nextDue = db.prepare<[], { due: number | null }>('SELECT min(next_due) AS due FROM schedules WHERE enabled AND next_due IS NOT NULL');
  const due = db.prepare<[number, number], ScheduleRow>('SELECT * FROM schedules WHERE enabled AND next_due <= ? ORDER BY next_due, id LIMIT ?');
  const move = db.prepare<[number | null, number, string, number]>('UPDATE schedules SET next_due = ?, updated_at = ? WHERE id = ? AND next_due = ? AND enabled');
  const insertFire = db.prepare<[string, number, number, string, string | null, string | null]>(
    'INSERT INTO schedule_fires (schedule_id, due_at, fired_at, outcome, run_id, detail) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
  );
  const claim = db.transaction((id: string, expected: number, next: number | null, fire: { firedAt: number; outcome: string; runId: string | null; detail: string | null }) => {
    if (move.run(next, fire.firedAt, id, expected).changes !== 1) return false;
    insertFire.run(id, expected, fire.firedAt, fire.outcome, fire.runId, fire.detail);
    return true;
  });
  const settle = db.prepare<[string, string | null, string, number]>(`UPDATE schedule_fires SET outcome = ?, detail = coalesce(?, detail) WHERE schedule_id = ? AND due_at = ? AND outcome = 'claimed'`);
  const isClaimed = db.prepare<[string, number], { one: number }>(`SELECT 1 AS one FROM schedule_fires WHERE schedule_id = ? AND due_at = ? AND outcome = 'claimed'`);
  // a claim's own detail ('caught up at start') is kept, followed by the event it made
  const markDispatched = db.prepare<{ made: string; id: string; dueAt: number }>(
    `UPDATE OR FAIL schedule_fires SET outcome = 'dispatched', detail = coalesce(detail || '; ' || @made, @made) WHERE schedule_id = @id AND due_at = @dueAt AND outcome = 'claimed'`,
  );
  const fires = db.prepare<[string, number], FireRow>('SELECT * FROM schedule_fires WHERE schedule_id = ? ORDER BY due_at DESC LIMIT ?');
  const unsettled = db.prepare<[number, number], FireRow>(`SELECT * FROM schedule_fires WHERE outcome = 'claimed' AND fired_at <= ? ORDER BY fired_at LIMIT ?`);
  return {
    async put(s, reschedule) {
      return toSchedule(put.get({ ...s, job: JSON.stringify(s.job), enabled: s.enabled ? 1 : 0, reschedule: reschedule ? 1 : 0 })!);
    },
    async get(id) {
      const row = get.get(id);
      return row && toSchedule(row);
    },
    async list() {
      return list.all().map(toSchedule);
    },
    async delete(id) {
      return remove.run(id).changes === 1;
    },
    async nextDue() {
      return nextDue.get()?.due ?? undefined;
    },
    async due(now, limit) {
      return due.all(now, limit).map(toSchedule);
    },
    async claimFire(id, expected, next, fire) {
      return claim(id, expected, next, fire);
    },
    async recordFire(f) {
      return insertFire.run(f.scheduleId, f.dueAt, f.firedAt, f.outcome, f.runId, f.detail).changes === 1;
    },
    async settleFire(id, dueAt, outcome, detail = null) {
      return settle.run(outcome, detail, id, dueAt).changes === 1;
    },
    async settleFireWithEvent(id, dueAt, { session, text, maxPending }) {
      // one group-commit work: the event and the fire's mark commit together or not at all
      return commits.run(() => {
        if (!isClaimed.get(id, dueAt)) return { made: false };
        const event = appender.append(session, text, maxPending);
        markDispatched.run({ made: eventDetail(event), id, dueAt });
        return { made: true, ...(event && { event }) };
      });
    },
    async fires(id, limit) {
      return fires.all(id, limit).map(toFire);
    },
    async listFires(query) {
      const f = fireFilter(new ListFilter(sqliteDialect, 'due_at', 'schedule_id'), query);
      return (db.prepare(`SELECT * FROM schedule_fires ${f.sql()} ${f.order(query.limit)}`).all(f.named) as FireRow[]).map(toFire);
    },
    async unsettled(before, limit) {
      return unsettled.all(before, limit).map(toFire);
    },
  };
}
