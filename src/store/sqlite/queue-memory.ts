import type { SystemEvent } from '../port.js';
import type { GroupCommit } from './group-commit.js';
import { MemoryFreshness } from './memory-freshness.js';
import type { SqliteDatabase } from './open-database.js';

/** a session's newest event by time, as the operator's lists order them: read from events_session_created, which they read too */
export const NEWEST_EVENT = 'SELECT id, text, status, created_at FROM events WHERE session = ? ORDER BY created_at DESC, id DESC LIMIT 1';
/** a session's pending events, oldest first: from events_session_pending alone (the status spelled in the SQL, as that partial index's) */
export const PENDING_EVENT_IDS = "SELECT id FROM events WHERE session = ? AND status = 'pending' ORDER BY id";

/** what the enqueue of a session needs of its queue */
export interface QueueState {
  /** the newest event by time (created_at, then id): a new one repeating it while it is open is skipped */
  newest?: { id: number; text: string; status: SystemEvent['status']; createdAt: number };
  /** the ids of the pending events, ascending: the cap drops from the front */
  pending: number[];
}

/** the time of the newest event keyed by its time (time-keyed-rows.ts): every later keyed one was made no earlier */
export const KEYED_EVENT_AT = 'SELECT created_at FROM events WHERE unkeyed_at IS NULL ORDER BY id DESC LIMIT 1';

/** past this many sessions held, the memory starts again (the main session's queue is the one that matters) */
const MAX_SESSIONS = 1000;

/**
 * Each session's queue as the database has it, held between group commits, so that an enqueue
 * neither reads the newest event nor searches for the pending ones past the cap: one database
 * file has one serving process (serving-lock.ts), and in it every write of `events` goes through
 * the events repo's statements, whose group-commit works keep this in step (the enqueue) or
 * `forget` it (claims, completions, releases). Read again from the database, lazily, whenever it
 * may be stale (a rollback, another connection's commit: MemoryFreshness).
 * `state` is for a group commit's works only: the checks rest on its write lock and its attempts.
 */
export class QueueMemory {
  private sessions = new Map<string, QueueState>();
  /** KEYED_EVENT_AT's answer, kept in step by the enqueue (`keyed`); undefined until read */
  private keyedAt: number | undefined;
  private readonly newestKeyed;
  private readonly newest;
  private readonly pendingIds;
  private readonly freshness: MemoryFreshness;

  constructor(db: SqliteDatabase, commits: GroupCommit) {
    this.newest = db.prepare<[string], { id: number; text: string; status: SystemEvent['status']; created_at: number }>(NEWEST_EVENT);
    this.pendingIds = db.prepare<[string], number>(PENDING_EVENT_IDS).pluck();
    this.newestKeyed = db.prepare<[], number>(KEYED_EVENT_AT).pluck();
    this.freshness = new MemoryFreshness(commits);
  }

  /** the session's queue, read from the database unless held and current; inside a group commit's work */
  state(session: string): QueueState {
    if (this.freshness.moved()) this.stale();
    let state = this.sessions.get(session);
    if (state === undefined) {
      if (this.sessions.size >= MAX_SESSIONS) this.sessions.clear();
      const newest = this.newest.get(session);
      state = { pending: this.pendingIds.all(session) };
      if (newest) state.newest = { id: newest.id, text: newest.text, status: newest.status, createdAt: newest.created_at };
      this.sessions.set(session, state);
    }
    return state;
  }

  /**
   * the time of the newest event keyed by its time, 0 when there is none (an event made before it
   * is not keyed: time-keyed-rows.ts); inside a group commit's work
   */
  keyedEventAt(): number {
    if (this.freshness.moved()) this.stale();
    this.keyedAt ??= this.newestKeyed.get() ?? 0;
    return this.keyedAt;
  }

  /** an event keyed by its time, made at `at`, was inserted */
  keyed(at: number): void {
    this.keyedAt = at;
  }

  /** every session read again at its next enqueue: events' statuses were written another way (an event's time never is) */
  forget(): void {
    if (this.sessions.size) this.sessions.clear();
  }

  /** all of it read again: a rollback may have undone an insert, another connection may have made events */
  private stale(): void {
    this.forget();
    this.keyedAt = undefined;
  }
}
