import type pg from 'pg';
import type { EventsRepo, SystemEvent } from '../port.js';
import { toEvent, type EventRow as Row } from '../record-rows.js';
import type { PgGroupCommit } from './group-commit.js';
import { query, type Queryable } from './pg-pool.js';


/** one round trip, its own transaction unless `db` is inside one (a run's completion) */
export async function enqueueEvent(db: Queryable, session: string, text: string, maxPending: number): Promise<SystemEvent | undefined> {
  const { rows } = await query<Row>(db, 'SELECT * FROM herald_enqueue_event($1, $2, $3, $4)', [session, text, maxPending, Date.now()]);
  return rows[0] && toEvent(rows[0]);
}

export function postgresEventsRepo(pool: pg.Pool, commits: PgGroupCommit): EventsRepo {
  return {
    // grouped: the wakes of one event-loop turn share one commit and one hold of the session's lock
    enqueue(session, text, maxPending) {
      return commits.run((client) => enqueueEvent(client, session, text, maxPending));
    },
    async claimPending(session, { owner, now, until }) {
      // pending, or processing under a lease that ran out; SKIP LOCKED: never wait on another claimer
      const { rows } = await query<Row>(
        pool,
        `UPDATE events SET status = 'processing', lease_owner = $2, lease_until = $4 WHERE id IN
           (SELECT id FROM events WHERE session = $1
              AND status IN ('pending', 'processing') AND (status = 'pending' OR lease_until IS NULL OR lease_until < $3)
            FOR UPDATE SKIP LOCKED)
         RETURNING *`,
        [session, owner, now, until],
      );
      return rows.map(toEvent).sort((a, b) => a.id - b.id);
    },
    async complete(ids) {
      // rows locked in id order, as the enqueue function's overflow drop does: two writers never wait on each other in a cycle
      if (!ids.length) return;
      await query(
        pool,
        "UPDATE events SET status = 'done', lease_owner = NULL, lease_until = NULL WHERE id IN (SELECT id FROM events WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE)",
        [ids],
      );
    },
    async renew(ids, owner, until) {
      if (!ids.length) return;
      await query(
        pool,
        "UPDATE events SET lease_until = $3 WHERE id IN (SELECT id FROM events WHERE id = ANY($1::bigint[]) AND lease_owner = $2 AND status = 'processing' ORDER BY id FOR UPDATE)",
        [ids, owner, until],
      );
    },
    async release(ids, owner) {
      if (!ids.length) return;
      await query(
        pool,
        "UPDATE events SET status = 'pending', lease_owner = NULL, lease_until = NULL WHERE id IN (SELECT id FROM events WHERE id = ANY($1::bigint[]) AND lease_owner = $2 AND status = 'processing' ORDER BY id FOR UPDATE)",
        [ids, owner],
      );
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
