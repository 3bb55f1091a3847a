import { applyQueueRules } from '../queries/event-queue-rules.js';
import type { EventsRepo, SystemEvent } from '../port.js';
import { toEvent, type EventRow as Row } from '../rows/record-rows.js';
import type { GroupCommit } from './group-commit.js';
import type { SqliteDatabase } from './open-database.js';
import { QueueMemory } from './queue-memory.js';


/**
 * Adds a pending event unless it repeats the session's newest one while that is open, keeping at
 * most `maxPending` pending. Synchronous and without a transaction of its own: it runs as (part of)
 * a group commit's work, atomic as that work is (group-commit.ts). The newest event and the pending
 * ids come from `memory` (queue-memory.ts), kept in step here: the overflow is dropped by rowid.
 * One appender per database: every writer of events shares its memory.
 */
export function eventAppender(db: SqliteDatabase, commits: GroupCommit) {
  const memory = new QueueMemory(db, commits);
  // the writes say OR FAIL: a failed one is undone whole by its group commit, no statement journal needed (group-commit.ts)
  // unkeyed_at: the time of an event made before the newest one keyed by its time (time-keyed-rows.ts)
  const insert = db.prepare<[string, string, number, number, number | null]>("INSERT OR FAIL INTO events (session, text, status, created_at, untrusted, unkeyed_at) VALUES (?, ?, 'pending', ?, ?, ?)");
  const drop = db.prepare<[number]>("UPDATE OR FAIL events SET status = 'dropped' WHERE id = ? AND status = 'pending'");
  // the database's own answer, should the memory ever disagree with it (an event it holds as
  // pending is not): every pending event older than the newest `maxPending` ones
  const dropOverflow = db.prepare<{ session: string; maxPending: number }>(
    `UPDATE OR FAIL events SET status = 'dropped' WHERE session = @session AND status = 'pending' AND id <=
       (SELECT id FROM events WHERE session = @session AND status = 'pending' ORDER BY id DESC LIMIT 1 OFFSET @maxPending)`,
  );
  const append = (session: string, text: string, maxPending: number, untrusted = false): SystemEvent | undefined => {
    const queue = memory.state(session);
    const previous = queue.newest;
    // a retried webhook must not wake the agent twice with the same news; once the previous
    // event has been handled, the same text is news again (a deploy finishing twice in a day)
    if (previous && previous.text === text && (previous.status === 'pending' || previous.status === 'processing')) return undefined;
    const createdAt = Date.now();
    const keyed = createdAt >= memory.keyedEventAt();
    const id = Number(insert.run(session, text, createdAt, untrusted ? 1 : 0, keyed ? null : createdAt).lastInsertRowid);
    if (keyed) memory.keyed(createdAt);
    // newest by time, then id: a clock set back leaves the previous one newest
    if (!previous || createdAt >= previous.createdAt) queue.newest = { id, text, status: 'pending', createdAt };
    queue.pending.push(id);
    let dropped = 0;
    while (queue.pending.length > maxPending) {
      const oldest = queue.pending.shift()!;
      if (drop.run(oldest).changes === 0) {
        dropped += dropOverflow.run({ session, maxPending }).changes;
        memory.forget();
        break;
      }
      dropped++;
      if (queue.newest?.id === oldest) queue.newest.status = 'dropped';
    }
    commits.count('events:pending', 1 - dropped);
    commits.count('events:dropped', dropped);
    // as inserted: the drop only touches the events older than the newest `maxPending`
    return { id, session, text, status: 'pending', createdAt, untrusted };
  };
  return { append, forget: () => memory.forget() };
}

export type EventAppender = ReturnType<typeof eventAppender>;

export const PENDING_COUNT = "SELECT COUNT(*) AS n FROM events WHERE session = ? AND status = 'pending'";
// pending, or processing under a lease that ran out (NULL: claimed before leases existed); each
// status spelled in the SQL, so the claim reads the session's open events from its partial index
// (events_session_pending, events_session_processing), not every event the session ever had (the
// main session's history); the pending ones and the lapsed ones apart, so the pending ones taken are counted
export const CLAIM_PENDING = `UPDATE OR FAIL events SET status = 'processing', lease_owner = @owner, lease_until = @until
  WHERE session = @session AND status = 'pending' RETURNING *`;
export const CLAIM_LAPSED = `UPDATE OR FAIL events SET status = 'processing', lease_owner = @owner, lease_until = @until
  WHERE session = @session AND status = 'processing' AND (lease_until IS NULL OR lease_until < @now) RETURNING *`;

/**
 * writes go through the group commit: a wake's event shares its commit with the requests beside it.
 * `appender` is the database's one (sqlite-store.ts): the claims, completions and releases here
 * change events it holds in memory, so each has it read them again
 */
export function sqliteEventsRepo(db: SqliteDatabase, commits: GroupCommit, appender: EventAppender): EventsRepo {
  const pendingCount = db.prepare<[string], { n: number }>(PENDING_COUNT);
  const claimPending = db.prepare<{ session: string; owner: string; until: number }, Row>(CLAIM_PENDING);
  const claimLapsed = db.prepare<{ session: string; owner: string; now: number; until: number }, Row>(CLAIM_LAPSED);
  // what the claim found but the queue's rules leave out (applyQueueRules)
  const dropClaimed = db.prepare<[number]>("UPDATE OR FAIL events SET status = 'dropped', lease_owner = NULL, lease_until = NULL WHERE id = ?");
  const claim = (lease: { session: string; owner: string; now: number; until: number }, maxPending: number) => {
    const pending = claimPending.all({ session: lease.session, owner: lease.owner, until: lease.until });
    commits.count('events:pending', -pending.length);
    const open = [...pending.map((event) => ({ event, pending: true })), ...claimLapsed.all(lease).map((event) => ({ event, pending: false }))];
    const { taken, dropped } = applyQueueRules(open, maxPending);
    for (const row of dropped) dropClaimed.run(row.id);
    commits.count('events:dropped', dropped.length);
    return taken;
  };
  // a claimed event is processing; any other is looked at first, so its status is counted out
  const doneProcessing = db.prepare<[number]>("UPDATE OR FAIL events SET status = 'done', lease_owner = NULL, lease_until = NULL WHERE id = ? AND status = 'processing'");
  const statusOf = db.prepare<[number], { status: string }>('SELECT status FROM events WHERE id = ?');
  const doneAny = db.prepare<[number]>("UPDATE OR FAIL events SET status = 'done', lease_owner = NULL, lease_until = NULL WHERE id = ?");
  const done = (id: number) => {
    if (doneProcessing.run(id).changes === 1) return;
    const was = statusOf.get(id)?.status;
    if (was === undefined || doneAny.run(id).changes === 0) return;
    if (was === 'pending' || was === 'dropped') commits.count(`events:${was}`, -1);
  };
  const renew = db.prepare<[number, number, string]>("UPDATE events SET lease_until = ? WHERE id = ? AND lease_owner = ? AND status = 'processing'");
  const release = db.prepare<[number, string]>(
    "UPDATE events SET status = 'pending', lease_owner = NULL, lease_until = NULL WHERE id = ? AND lease_owner = ? AND status = 'processing'",
  );
  const requeueProcessing = db.prepare("UPDATE OR FAIL events SET status = 'pending', lease_owner = NULL, lease_until = NULL WHERE status = 'processing'");
  const list = db.prepare<[string, number], Row>('SELECT * FROM events WHERE session = ? ORDER BY created_at DESC, id DESC LIMIT ?');

  return {
    async enqueue(session, text, maxPending) {
      return commits.run(() => appender.append(session, text, maxPending));
    },
    async claimPending(session, lease, maxPending) {
      const rows = await commits.run(() => {
        appender.forget();
        return claim({ session, ...lease }, maxPending);
      });
      return rows.map(toEvent);
    },
    async complete(ids) {
      await commits.run(() => {
        appender.forget();
        ids.forEach(done);
      });
    },
    async renew(ids, owner, until) {
      await commits.run(() => ids.forEach((id) => renew.run(until, id, owner)));
    },
    async release(ids, owner) {
      await commits.run(() => {
        appender.forget();
        ids.forEach((id) => commits.count('events:pending', release.run(id, owner).changes));
      });
    },
    async requeueProcessing() {
      return commits.run(() => {
        appender.forget();
        const n = requeueProcessing.run().changes;
        commits.count('events:pending', n);
        return n;
      });
    },
    async list(session, limit) {
      return list.all(session, limit).map(toEvent);
    },
    async countPending(session) {
      return pendingCount.get(session)!.n;
    },
  };
}
