import type pg from 'pg';
import { deliveryFilter, eventFilter, runFilter, sessionFilter, sessionsSql } from '../browse-filters.js';
import { minuteOf, toEvent, type EventRow } from '../record-rows.js';
import { ListFilter, postgresDialect } from '../list-filter.js';
import type { BrowseRepo, MinuteCount } from '../port.js';
import { toSession, type SessionRow } from '../session-summary.js';
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
      const f = runFilter(new ListFilter(postgresDialect, 'created_at', 'id'), q);
      return (await all<RunRow>(`SELECT ${RUN_COLUMNS} FROM runs ${f.sql()} ${f.order(q.limit)}`, f.values)).map(toRun);
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
    runsPerMinute: (since) => perMinute('runs', "status IN ('failed', 'timed_out')", since),
    deliveriesPerMinute: (since) => perMinute('deliveries', "status IN ('failed', 'abandoned')", since),
  };
}
