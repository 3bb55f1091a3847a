import type { BrowseRepo, MinuteCount, SystemEvent } from '../port.js';
import { toSession, type SessionRow } from '../session-summary.js';
import { toDelivery, type DeliveryRow } from './deliveries-repo.js';
import { deliveryFilter, eventFilter, runFilter, sessionFilter } from '../browse-filters.js';
import { ListFilter, sqliteDialect } from '../list-filter.js';
import type { SqliteDatabase } from './open-database.js';
import { MINUTE_SQL } from './receipts-repo.js';
import { toRun, type RunRow } from './runs-repo.js';

interface EventRow {
  id: number;
  session: string;
  text: string;
  status: SystemEvent['status'];
  created_at: number;
}

/** The operator's lists over SQLite: statements are built per filter (a handful of shapes, cached by better-sqlite3's parser cost only). */
export function sqliteBrowseRepo(db: SqliteDatabase): BrowseRepo {
  const all = <T>(sql: string, params: Record<string, unknown>) => db.prepare(sql).all(params) as T[];
  const runsPerMinute = db.prepare<[number], MinuteCount>(
    `SELECT ${MINUTE_SQL('created_at')} AS minute, COUNT(*) AS total, SUM(status IN ('failed', 'timed_out')) AS failed
     FROM runs WHERE created_at >= ? GROUP BY minute ORDER BY minute`,
  );
  const deliveriesPerMinute = db.prepare<[number], MinuteCount>(
    `SELECT ${MINUTE_SQL('created_at')} AS minute, COUNT(*) AS total, SUM(status IN ('failed', 'abandoned')) AS failed
     FROM deliveries WHERE created_at >= ? GROUP BY minute ORDER BY minute`,
  );
  return {
    async runs(query) {
      const f = runFilter(new ListFilter(sqliteDialect, 'created_at', 'id'), query);
      return all<RunRow>(`SELECT * FROM runs ${f.sql()} ${f.order(query.limit)}`, f.named).map(toRun);
    },
    async events(query) {
      const f = eventFilter(new ListFilter(sqliteDialect, 'created_at', 'id'), query);
      return all<EventRow>(`SELECT * FROM events ${f.sql()} ${f.order(query.limit)}`, f.named).map((r) => ({
        id: r.id,
        session: r.session,
        text: r.text,
        status: r.status,
        createdAt: r.created_at,
      }));
    },
    async deliveries(query) {
      const f = deliveryFilter(new ListFilter(sqliteDialect, 'created_at', 'id'), query);
      return all<DeliveryRow>(`SELECT * FROM deliveries ${f.sql()} ${f.order(query.limit)}`, f.named).map(toDelivery);
    },
    async sessions(query) {
      const f = new ListFilter(sqliteDialect, 'last_at', 'key');
      const fallback = f.bind(query.defaultAgentId);
      sessionFilter(f, query);
      // a session's agent: its first message's (a chat names it in meta, a hook run's is its run's)
      return all<SessionRow>(
        `SELECT * FROM (
           SELECT s.key, s.messages, s.first_at, s.last_at,
             CASE WHEN s.key = 'main' THEN ${fallback} ELSE COALESCE(json_extract(m.meta, '$.agentId'), r.agent_id, ${fallback}) END AS agent_id
           FROM (SELECT session_key AS key, COUNT(*) AS messages, MIN(created_at) AS first_at, MAX(created_at) AS last_at, MIN(id) AS first_id
                 FROM session_messages GROUP BY session_key) s
           JOIN session_messages m ON m.id = s.first_id
           LEFT JOIN runs r ON r.id = m.run_id
         ) ${f.sql()} ${f.order(query.limit)}`,
        f.named,
      ).map(toSession);
    },
    async runsPerMinute(since) {
      return runsPerMinute.all(since);
    },
    async deliveriesPerMinute(since) {
      return deliveriesPerMinute.all(since);
    },
  };
}
