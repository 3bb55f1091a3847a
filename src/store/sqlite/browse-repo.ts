import { MADE_UP_SESSION_PREFIX, type BrowseRepo, type EventQuery, type MinuteCount, type RunQuery } from '../port.js';
import { toSession, type SessionRow } from '../rows/session-summary.js';
import { toDelivery, type DeliveryRow } from './deliveries-repo.js';
import { deliveryFilter, eventFilter, runFilter, runMapping, sessionFilter, sessionsSql } from '../queries/browse-filters.js';
import { minuteOf, toEvent, type EventRow } from '../rows/record-rows.js';
import { inRunQueue, mappingIs, RUNS_MAPPING_LEAVES_OUT } from '../queries/indexed-conditions.js';
import { ListFilter, sqliteDialect } from '../queries/list-filter.js';
import type { SqliteDatabase } from './open-database.js';
import { IN_SESSION_INDEXES, MADE_UP_HEAD, toRun, type RunRow } from './runs-repo.js';
import { firstRowidAt, rowsSinceSql, sinceParams, timeKeyedPage, unkeyedProbe, type IdAt, type UnkeyedInRange } from './time-keyed-rows.js';

/** from this many runs of a mapping on, its deliveries are found by walking the deliveries (see deliveryFilter) */
const MANY_RUNS = 2000;

/**
 * A page of the runs list. Queued or running: read from the unfinished runs only (runs_status holds
 * the finished ones) and sorted; left to itself SQLite walks every run by time instead, all of
 * them when none is running. A list no other index orders walks them by time: the primary key and
 * runs_created_unkeyed (time-keyed-rows.ts). A list the session indexes serve (a session's runs, the
 * queue) reads the runs they leave out apart: a made-up session's first run by its id, the queue's
 * from runs_ready (migration 59).
 */
export function runsPageSql(query: RunQuery, unkeyedInRange: UnkeyedInRange): { sql: string; named: Record<string, unknown> } {
  const f = runFilter(new ListFilter(sqliteDialect, 'created_at', 'id'), query);
  if (walksRunsByTime(query)) return { sql: timeKeyedPage('runs', 'runs_created_unkeyed', 'created_at', f, query, unkeyedInRange), named: f.named };
  const queue = query.status !== undefined && inRunQueue(query.status);
  const session = query.sessionKey;
  if (!queue && session === undefined) return { sql: `SELECT * FROM runs ${f.sql()} ${f.order(query.limit)}`, named: f.named };
  const indexed = `SELECT * FROM runs ${queue ? 'INDEXED BY runs_session_unfinished' : ''} ${f.sql(IN_SESSION_INDEXES)} ${f.order(query.limit)}`;
  if (session !== undefined && !session.startsWith(MADE_UP_SESSION_PREFIX)) return { sql: indexed, named: f.named };
  const leftOut =
    session !== undefined
      ? `SELECT * FROM runs ${f.sql(`id = ${f.bind(session.slice(MADE_UP_SESSION_PREFIX.length))}`, MADE_UP_HEAD)}`
      : `SELECT * FROM (SELECT * FROM runs INDEXED BY runs_ready ${f.sql(MADE_UP_HEAD)} ${f.order(query.limit)})`;
  return { sql: `SELECT * FROM (${indexed}) UNION ALL ${leftOut} ${f.order(query.limit)}`, named: f.named };
}

/** a runs list no index orders but by time: none of a session's (runs_session), a status's (runs_status, the queue's) or a mapping's (runs_mapping) */
function walksRunsByTime(query: RunQuery): boolean {
  return (
    query.sessionKey === undefined &&
    (query.status === undefined || query.status === 'succeeded') &&
    (query.mappingId === undefined || RUNS_MAPPING_LEAVES_OUT.includes(query.mappingId))
  );
}

/**
 * A page of the events list. A session's events are read from events_session_created, a
 * mapping's by their receipts; the rest walk the events by time: the primary key and
 * events_created_unkeyed (time-keyed-rows.ts).
 */
export function eventsPageSql(query: EventQuery, unkeyedInRange: UnkeyedInRange, idAt: IdAt): { sql: string; named: Record<string, unknown> } {
  const f = eventFilter(new ListFilter(sqliteDialect, 'created_at', 'id'), query);
  if (query.session === undefined && query.mappingId === undefined) return { sql: timeKeyedPage('events', 'events_created_unkeyed', 'created_at', f, query, unkeyedInRange, idAt), named: f.named };
  return { sql: `SELECT * FROM events ${f.sql()} ${f.order(query.limit)}`, named: f.named };
}

/** the runs made since `since`, by minute: the keyed ones from the primary key, the others from runs_created_unkeyed */
export const RUNS_PER_MINUTE = `SELECT ${minuteOf('created_at')} AS minute, COUNT(*) AS total, SUM(status IN ('failed', 'timed_out')) AS failed
  FROM (${rowsSinceSql('runs', 'runs_created_unkeyed', 'created_at', 'created_at, status')}) GROUP BY minute ORDER BY minute`;

/** The operator's lists over SQLite: statements are built per filter (a handful of shapes, cached by better-sqlite3's parser cost only). */
export function sqliteBrowseRepo(db: SqliteDatabase): BrowseRepo {
  const all = <T>(sql: string, params: Record<string, unknown>) => db.prepare(sql).all(params) as T[];
  const unkeyedInRange = unkeyedProbe(db);
  const firstEventAt = firstRowidAt(db, 'events', 'created_at');
  const runsPerMinute = db.prepare<[{ from: string; since: number }], MinuteCount>(RUNS_PER_MINUTE);
  const deliveriesPerMinute = db.prepare<[number], MinuteCount>(
    `SELECT ${minuteOf('created_at')} AS minute, COUNT(*) AS total, SUM(status IN ('failed', 'abandoned')) AS failed
     FROM deliveries WHERE created_at >= ? GROUP BY minute ORDER BY minute`,
  );
  const runsOfMapping = (mappingId: string) =>
    db.prepare<[string], { n: number }>(`SELECT COUNT(*) AS n FROM (SELECT 1 FROM runs WHERE ${mappingIs(runMapping(new ListFilter(sqliteDialect, '', '')), mappingId, RUNS_MAPPING_LEAVES_OUT)} LIMIT ${MANY_RUNS})`);
  return {
    async runs(query) {
      const { sql, named } = runsPageSql(query, unkeyedInRange);
      return all<RunRow>(sql, named).map(toRun);
    },
    async events(query) {
      const { sql, named } = eventsPageSql(query, unkeyedInRange, firstEventAt);
      return all<EventRow>(sql, named).map(toEvent);
    },
    async deliveries(query) {
      // SQLite keeps no statistics per mapping: count the mapping's runs, up to a bound, to choose
      const manyRuns = query.mappingId !== undefined && runsOfMapping(query.mappingId).get(query.mappingId)!.n >= MANY_RUNS;
      const f = deliveryFilter(new ListFilter(sqliteDialect, 'created_at', 'id'), query, manyRuns);
      return all<DeliveryRow>(`SELECT * FROM deliveries ${f.sql()} ${f.order(query.limit)}`, f.named).map(toDelivery);
    },
    async sessions(query) {
      const f = new ListFilter(sqliteDialect, 'last_at', 'key');
      const fallback = f.bind(query.defaultAgentId);
      return all<SessionRow>(sessionsSql(sessionFilter(f, query), fallback, query.limit), f.named).map(toSession);
    },
    async runsPerMinute(since) {
      return runsPerMinute.all(sinceParams(since));
    },
    async deliveriesPerMinute(since) {
      return deliveriesPerMinute.all(since);
    },
  };
}
