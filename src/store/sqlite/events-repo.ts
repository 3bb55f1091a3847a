import type { EventsRepo, SystemEvent } from '../port.js';
import { toEvent, type EventRow as Row } from '../record-rows.js';
import type { GroupCommit } from './group-commit.js';
import type { SqliteDatabase } from './open-database.js';


/**
 * Adds a pending event unless it repeats the session's pending one, keeping at most `maxPending`
 * pending. Synchronous and without a transaction of its own: it runs as (part of) a group
 * commit's work, atomic as that work is (group-commit.ts).
 */
export function eventAppender(db: SqliteDatabase) {
  const last = db.prepare<[string], Pick<Row, 'text' | 'status'>>('SELECT text, status FROM events WHERE session = ? ORDER BY id DESC LIMIT 1');
  // the writes say OR FAIL: a failed one is undone whole by its group commit, no statement journal needed (group-commit.ts)
  const insert = db.prepare<[string, string, number, number]>("INSERT OR FAIL INTO events (session, text, status, created_at, untrusted) VALUES (?, ?, 'pending', ?, ?)");
  // one statement instead of count-then-update: every pending event older than the newest
  // `maxPending` ones (the subquery finds none while there are at most that many)
  const dropOverflow = db.prepare<{ session: string; maxPending: number }>(
    `UPDATE OR FAIL events SET status = 'dropped' WHERE session = @session AND status = 'pending' AND id <=
       (SELECT id FROM events WHERE session = @session AND status = 'pending' ORDER BY id DESC LIMIT 1 OFFSET @maxPending)`,
  );
  return (session: string, text: string, maxPending: number, untrusted = false): SystemEvent | undefined => {
    const previous = last.get(session);
    // a retried webhook must not wake the agent twice with the same news; once the previous
    // event has been handled, the same text is news again (a deploy finishing twice in a day)
    if (previous && previous.text === text && (previous.status === 'pending' || previous.status === 'processing')) return undefined;
    const createdAt = Date.now();
    const id = Number(insert.run(session, text, createdAt, untrusted ? 1 : 0).lastInsertRowid);
    dropOverflow.run({ session, maxPending });
    // as inserted: the drop only touches the events older than the newest `maxPending`
    return { id, session, text, status: 'pending', createdAt, untrusted };
  };
}

/** writes go through the group commit: a wake's event shares its commit with the requests beside it */
export function sqliteEventsRepo(db: SqliteDatabase, commits: GroupCommit): EventsRepo {
  const enqueue = eventAppender(db);
  const pendingCount = db.prepare<[string], { n: number }>("SELECT COUNT(*) AS n FROM events WHERE session = ? AND status = 'pending'");
  // pending, or processing under a lease that ran out (NULL: claimed before leases existed);
  // `status IN (...)` spelled out so the claim reads the session's open events from
  // events_session_status, not every event the session ever had (the main session's history)
  const claim = db.prepare<{ session: string; owner: string; now: number; until: number }, Row>(
    `UPDATE OR FAIL events SET status = 'processing', lease_owner = @owner, lease_until = @until
     WHERE session = @session AND status IN ('pending', 'processing') AND (status = 'pending' OR lease_until IS NULL OR lease_until < @now)
     RETURNING *`,
  );
  const done = db.prepare<[number]>("UPDATE OR FAIL events SET status = 'done', lease_owner = NULL, lease_until = NULL WHERE id = ?");
  const renew = db.prepare<[number, number, string]>("UPDATE events SET lease_until = ? WHERE id = ? AND lease_owner = ? AND status = 'processing'");
  const release = db.prepare<[number, string]>(
    "UPDATE events SET status = 'pending', lease_owner = NULL, lease_until = NULL WHERE id = ? AND lease_owner = ? AND status = 'processing'",
  );
  const list = db.prepare<[string, number], Row>('SELECT * FROM events WHERE session = ? ORDER BY id DESC LIMIT ?');

  return {
    async enqueue(session, text, maxPending) {
      return commits.run(() => enqueue(session, text, maxPending));
    },
    async claimPending(session, lease) {
      const rows = await commits.run(() => claim.all({ session, ...lease }));
      return rows.map(toEvent).sort((a, b) => a.id - b.id);
    },
    async complete(ids) {
      await commits.run(() => ids.forEach((id) => done.run(id)));
    },
    async renew(ids, owner, until) {
      await commits.run(() => ids.forEach((id) => renew.run(until, id, owner)));
    },
    async release(ids, owner) {
      await commits.run(() => ids.forEach((id) => release.run(id, owner)));
    },
    async list(session, limit) {
      return list.all(session, limit).map(toEvent);
    },
    async countPending(session) {
      return pendingCount.get(session)!.n;
    },
  };
}
