import type pg from 'pg';
import type { EventsRepo, SystemEvent } from '../port.js';
import { query, type Queryable } from './pg-pool.js';

interface Row {
  id: number;
  session: string;
  text: string;
  status: SystemEvent['status'];
  created_at: number;
}

const toEvent = (r: Row): SystemEvent => ({ id: r.id, session: r.session, text: r.text, status: r.status, createdAt: r.created_at });

/** one round trip, its own transaction unless `db` is inside one (a run's completion) */
export async function enqueueEvent(db: Queryable, session: string, text: string, maxPending: number): Promise<SystemEvent | undefined> {
  const { rows } = await query<Row>(db, 'SELECT * FROM herald_enqueue_event($1, $2, $3, $4)', [session, text, maxPending, Date.now()]);
  return rows[0] && toEvent(rows[0]);
}

export function postgresEventsRepo(pool: pg.Pool): EventsRepo {
  return {
    enqueue(session, text, maxPending) {
      return enqueueEvent(pool, session, text, maxPending);
    },
    async claimPending(session) {
      const { rows } = await query<Row>(
        pool,
        `UPDATE events SET status = 'processing' WHERE id IN
           (SELECT id FROM events WHERE session = $1 AND status = 'pending' FOR UPDATE SKIP LOCKED)
         RETURNING *`,
        [session],
      );
      return rows.map(toEvent).sort((a, b) => a.id - b.id);
    },
    async complete(ids) {
      if (ids.length) await query(pool, "UPDATE events SET status = 'done' WHERE id = ANY($1::bigint[])", [ids]);
    },
    async requeueProcessing() {
      await query(pool, "UPDATE events SET status = 'pending' WHERE status = 'processing'");
    },
    async list(session, limit) {
      const { rows } = await query<Row>(pool, 'SELECT * FROM events WHERE session = $1 ORDER BY id DESC LIMIT $2', [session, limit]);
      return rows.map(toEvent);
    },
    async countPending(session) {
      const { rows } = await query<{ n: number }>(pool, "SELECT COUNT(*)::int AS n FROM events WHERE session = $1 AND status = 'pending'", [session]);
      return rows[0]!.n;
    },
  };
}
