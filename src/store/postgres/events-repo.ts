import type pg from 'pg';
import type { EventsRepo, SystemEvent } from '../port.js';
import { toEvent, type EventRow as Row } from '../rows/record-rows.js';
import { prepared, query, type Queryable } from './pg-pool.js';
import { PgTurnBatch } from './turn-batch.js';

/** one round trip, its own transaction unless `db` is inside one (a run's completion) */
export async function enqueueEvent(db: Queryable, session: string, text: string, maxPending: number): Promise<SystemEvent | undefined> {
  const { rows } = await query<Row>(db, 'SELECT * FROM herald_enqueue_event($1, $2, $3, $4)', [session, text, maxPending, Date.now()]);
  return rows[0] && toEvent(rows[0]);
}

const ENQUEUE_EVENTS = prepared('enqueue_events', 'SELECT n, id FROM herald_enqueue_events($1, $2::text[], $3, $4)');

interface Enqueued {
  text: string;
  now: number;
}

/**
 * The enqueues to one queue (a session and its cap) of one event-loop turn, or of the turns
 * while the previous call was on its way, as ONE call of herald_enqueue_events (migrations 19,
 * 23) in autocommit: one round trip and one overflow drop for the turn. One call at a time: each
 * sees the one before it committed, so a process's own wakes keep the queue's rules exactly.
 */
function enqueueBatch(pool: pg.Pool, session: string, maxPending: number): PgTurnBatch<Enqueued, SystemEvent | undefined> {
  return new PgTurnBatch<Enqueued, SystemEvent | undefined>(
    pool,
    (items) => ({
      text: ENQUEUE_EVENTS,
      // one time for the call, as one call of herald_enqueue_event takes one
      values: [session, items.map((i) => i.text), maxPending, items[0]!.now],
    }),
    (rows, items) => {
      const results: (SystemEvent | undefined)[] = items.map(() => undefined);
      for (const row of rows) {
        const n = Number(row.n) - 1;
        results[n] = { id: Number(row.id), session, text: items[n]!.text, status: 'pending', createdAt: items[0]!.now, untrusted: false };
      }
      return results;
    },
    // one after the other (see above): while one is on its way, the next gathers
    1,
  );
}

export function postgresEventsRepo(pool: pg.Pool): EventsRepo & { drain(): Promise<void> } {
  // one batch per queue (in practice the main session's alone)
  const queues = new Map<string, PgTurnBatch<Enqueued, SystemEvent | undefined>>();
  return {
    drain: () => Promise.all([...queues.values()].map((q) => q.drain())).then(() => {}),
    enqueue(session, text, maxPending) {
      const key = `${maxPending}:${session}`;
      let queue = queues.get(key);
      if (!queue) queues.set(key, (queue = enqueueBatch(pool, session, maxPending)));
      return queue.add({ text, now: Date.now() });
    },
    async claimPending(session, { owner, now, until }, maxPending) {
      // herald_claim_events (migration 23): the claim keeps the queue's rules, which racing enqueues may not have
      const { rows } = await query<Row>(pool, 'SELECT * FROM herald_claim_events($1, $2, $3, $4, $5)', [session, owner, now, until, maxPending]);
      return rows.map(toEvent);
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
    async requeueProcessing() {
      const { rowCount } = await query(pool, "UPDATE events SET status = 'pending', lease_owner = NULL, lease_until = NULL WHERE status = 'processing'");
      return rowCount ?? 0;
    },
    async list(session, limit) {
      const { rows } = await query<Row>(pool, 'SELECT * FROM events WHERE session = $1 ORDER BY created_at DESC, id DESC LIMIT $2', [session, limit]);
      return rows.map(toEvent);
    },
    async countPending(session) {
      const { rows } = await query<{ n: number }>(pool, "SELECT COUNT(*)::int AS n FROM events WHERE session = $1 AND status = 'pending'", [session]);
      return rows[0]!.n;
    },
  };
}
