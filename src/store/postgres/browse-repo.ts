import type pg from 'pg';
import { deliveryFilter, eventFilter, runFilter, sessionFilter, sessionsSql } from '../queries/browse-filters.js';
import { minuteOf, toEvent, type EventRow } from '../rows/record-rows.js';
import { ListFilter, postgresDialect } from '../queries/list-filter.js';
import type { BrowseRepo, MinuteCount, RunQuery } from '../port.js';
import { toSession, type SessionRow } from '../rows/session-summary.js';
import { DELIVERY_COLUMNS, toDelivery, type DeliveryRow } from './deliveries-repo.js';
import { query } from './pg-pool.js';
import { RUN_COLUMNS, toRun, type RunRow } from './runs-repo.js';

/** The operator's lists over PostgreSQL: the same conditions as SQLite's, ILIKE for the text search. */
export function postgresBrowseRepo(pool: pg.Pool): BrowseRepo {
  const all = async <T extends pg.QueryResultRow>(text: string, values: unknown[]) => (await query<T>(pool, text, values)).rows;
  const perMinute = async (table: string, failed: string, since: number) =>
    all<MinuteCount>(
      `SELECT ${minuteOf('created_at')} AS minute, COUNT(*)::int AS total, COUNT(*) FILTER (WHERE ${failed})::int AS failed
       FROM ${table} WHERE created_at >= $1 GROUP BY minute ORDER BY minute`,
      [since],
    );
  return {
    async runs(q) {
      const { text, values } = runsListPage(q);
      return (await all<RunRow>(text, values)).map(toRun);
    },
    async events(q) {
      const f = eventFilter(new ListFilter(postgresDialect, 'created_at', 'id'), q);
      const rows = await all<EventRow>(`SELECT id, session, text, status, created_at, untrusted FROM events ${f.sql()} ${f.order(q.limit)}`, f.values);
      return rows.map(toEvent);
    },
    async deliveries(q) {
      const f = deliveryFilter(new ListFilter(postgresDialect, 'created_at', 'id'), q);
      return (await all<DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM deliveries ${f.sql()} ${f.order(q.limit)}`, f.values)).map(toDelivery);
    },
    async sessions(q) {
      const f = new ListFilter(postgresDialect, 'last_at', 'key');
      const fallback = `${f.bind(q.defaultAgentId)}::text`;
      return (await all<SessionRow>(sessionsSql(sessionFilter(f, q), fallback, q.limit), f.values)).map(toSession);
    },
    // the finished runs from runs_created, the unfinished from runs_unfinished (see runsListPage)
    runsPerMinute: (since) =>
      perMinute(
        `(SELECT created_at, status FROM runs WHERE ${LISTED} AND created_at >= $1
          UNION ALL SELECT created_at, status FROM runs WHERE ${postgresDialect.unfinishedRun} AND created_at >= $1) AS runs`,
        "status IN ('failed', 'timed_out')",
        since,
      ),
    deliveriesPerMinute: (since) => perMinute('deliveries', "status IN ('failed', 'abandoned')", since),
  };
}

/** the condition of runs_created, runs_session and runs_mapping: a finished run */
const LISTED = postgresDialect.listedRun!;

/**
 * A page of the runs list. runs_created, runs_session and runs_mapping hold the finished runs
 * only (migration 31): a run's claim and its end write new row versions, and an index whose
 * condition the row meets gets an entry for each, so the lists' indexes are written once per
 * run, at its end, instead of at its insert, its claim and its end. A list of one status reads
 * that status's index; a list of all reads the finished runs' page and the unfinished runs'
 * (runs_unfinished, or a session's from runs_session_unfinished) and keeps the newest of both.
 * Both branches are the one filter's text, so they share its placeholders and values.
 */
export function runsListPage(q: RunQuery): { text: string; values: unknown[] } {
  const f = runFilter(new ListFilter(postgresDialect, 'created_at', 'id'), q);
  if (q.status !== undefined) return { text: `SELECT ${RUN_COLUMNS} FROM runs ${f.sql()} ${f.order(q.limit)}`, values: f.values };
  const order = f.order(q.limit);
  const where = f.sql();
  const branch = (condition: string) => `(SELECT ${RUN_COLUMNS} FROM runs ${where ? `${where} AND` : 'WHERE'} ${condition} ${order})`;
  return {
    text: `SELECT * FROM (${branch(LISTED)} UNION ALL ${branch(postgresDialect.unfinishedRun)}) AS runs ${order}`,
    values: f.values,
  };
}
