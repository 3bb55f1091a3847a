import { CountDeltas } from './count-deltas.js';
import type { SqliteDatabase } from './open-database.js';
import { OthersCommits } from './others-commits.js';

interface Pending {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  /** told the write's value once it committed, before its promise settles (`afterCommit`) */
  committed: ((value: unknown) => void) | undefined;
  /** the last attempt's outcome: the work's value, or what it threw */
  ok: boolean;
  value: unknown;
}

/** a write of a group run together failed: the attempt is rolled back, its group run again isolated */
const WORK_FAILED = Symbol('group write failed');

/** empty second turns in a row after which a group waits only one: far more than a loaded process meets */
const ALONE_AFTER = 256;
/** a lone writer's groups wait the second turn once in this many, to see whether writes come in it again */
const PROBE_EVERY = 16;

/**
 * Group commit: writes asked for in the same two event-loop turns (the requests of their poll
 * phases, the runs finishing beside them) run in ONE transaction, and each caller's promise
 * settles only once that transaction committed. A commit costs far more than an insert, so under
 * load the commits are what is saved; the guarantee is unchanged: resolved means durable.
 *
 * Each `work` is synchronous and atomic as a whole, several statements included: the group runs
 * first without a savepoint per work (a SAVEPOINT, its RELEASE and the statement journal's copy of
 * every page a work touched cost more than many works do); a work that throws rolls that
 * attempt back, and the group runs again with each work under its own savepoint, so it fails
 * alone and the others commit. A work may therefore run twice: it only writes through the
 * database, and what it keeps in memory for its group is keyed by `generation`, which moves at
 * every attempt; what it keeps beyond its group is dropped when `rollbacks` moves. An error that
 * ends the whole transaction (disk full, I/O) fails every write of the group.
 *
 * So a write never needs SQLite's own undo of one statement: the rollback of its attempt or of its
 * savepoint undoes the whole work. The statements writes run many times a second say `OR FAIL`
 * (a constraint failure stops the statement, leaving its undo to that rollback): under the default
 * ABORT, SQLite copies every page a statement changes into a statement journal first, whenever
 * the statement fires triggers or changes several rows.
 */
export class GroupCommit {
  private pending: Pending[] = [];
  /** run once after the group's writes, in its transaction (see `last`) */
  private tails = new Set<() => void>();
  /** counts the attempts: what a write left for its group's `last` work is known by it (a rolled-back attempt leaves some behind) */
  generation = 0;
  /**
   * counts the rollbacks, of an attempt or of one work's savepoint: what a write keeps in memory
   * across groups (queue-memory.ts) may hold what a rolled-back write did, and is dropped when this moves
   */
  rollbacks = 0;
  /** other connections' commits: read at every attempt, where the transaction's locks are held already */
  readonly othersCommits: OthersCommits;
  private scheduled?: NodeJS.Immediate;
  /** the groups in a row whose second turn brought no write (`afterFirstTurn`) */
  private emptySecondTurns = 0;
  /** the groups committed after one turn, counted for the probe */
  private aloneGroups = 0;
  /** the writes queued when the group's first turn ended */
  private writesOfFirstTurn = 0;
  /** the promise `run` returned last while its write is still queued: `afterCommit` knows the write by it */
  private lastQueued?: Promise<unknown>;
  /** what the group's writes changed in the counts /metrics reads, written at the group's end (count-deltas.ts) */
  private readonly counts: CountDeltas;

  /**
   * `group` in a transaction (BEGIN IMMEDIATE), the function made once: better-sqlite3's
   * `db.transaction()` builds four wrapped functions and defines their properties at every call
   */
  private readonly groupTransaction: (group: Pending[], tails: Set<() => void>, isolated: boolean) => void;

  constructor(private readonly db: SqliteDatabase) {
    this.counts = new CountDeltas(db);
    this.othersCommits = new OthersCommits(db);
    this.groupTransaction = db.transaction(this.group.bind(this)).immediate;
  }

  run<T>(work: () => T): Promise<T> {
    const queued = new Promise<T>((resolve, reject) => {
      this.pending.push({ work, resolve: resolve as (value: unknown) => void, reject, committed: undefined, ok: false, value: undefined });
      this.scheduled ??= setImmediate(this.afterFirstTurn);
    });
    this.lastQueued = queued;
    return queued;
  }

  /**
   * Tells `committed` the value of `write` once it committed, before its promise settles, when
   * `write` is the promise `run` returned last and its write is still queued (one listener per
   * write): a reaction to the write without a promise of its own, for what every write of a kind
   * reacts to (the change feed). False otherwise, and nothing is kept.
   */
  afterCommit(write: Promise<unknown>, committed: (value: unknown) => void): boolean {
    const queued = this.pending.at(-1);
    if (write !== this.lastQueued || !queued || queued.committed) return false;
    queued.committed = committed;
    return true;
  }

  /**
   * The group commits after the poll phase of the event-loop turn after the one its first write
   * was asked in: the requests read in both turns (and the runs finishing beside them) share one
   * commit. A commit costs mostly per commit, not per write (the WAL pages of every B-tree it
   * touches: each list index, the counts, the usage rows), so under load twice the writes cost
   * little more than half as many. An idle loop turns over at once: a lone write waits
   * microseconds longer. (The answers it holds back that turn are owed to senders that may have
   * half-closed their socket: src/http/server/gateway-server.ts keeps their connection for them.)
   *
   * A writer alone (one client's completions, one after another) has every group's second turn
   * bring nothing: after `ALONE_AFTER` such turns in a row, a group commits after the turn its
   * first write was asked in, its answers a turn sooner and the loop spared a turn's poll. Every
   * `PROBE_EVERY`-th group then waits the second turn again, and a write in it brings the waiting
   * back. A run of empty second turns that long is rare under load, where one write in a second
   * turn starts the count again.
   */
  private readonly afterFirstTurn = () => {
    if (this.emptySecondTurns >= ALONE_AFTER && ++this.aloneGroups % PROBE_EVERY !== 0) return this.flush();
    this.writesOfFirstTurn = this.pending.length;
    this.scheduled = setImmediate(this.afterSecondTurn);
  };

  private readonly afterSecondTurn = () => {
    this.emptySecondTurns = this.pending.length > this.writesOfFirstTurn ? 0 : this.emptySecondTurns + 1;
    this.flush();
  };

  /**
   * Runs `work` once after every write of the group now being gathered, in the same transaction
   * (asked again in the same group, it still runs once): for work the writes of a group share,
   * such as the one claim for every run completed in it. Synchronous and atomic like a write; a
   * throw is its own failure (the writes are committed all the same): `work` reports it itself.
   */
  last(work: () => void): void {
    this.tails.add(work);
  }

  /**
   * Counts a change of the `store_counts` row `name` made by the write or `last` work running now
   * (call it right after the statement that made it): written with the group, undone with the
   * write if it is.
   */
  count(name: string, by: number): void {
    this.counts.count(name, by);
  }

  /** commits what is queued now (also called before the database closes) */
  flush(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    const group = this.pending;
    const tails = this.tails;
    this.pending = [];
    this.tails = new Set();
    this.lastQueued = undefined;
    if (group.length === 0) return;
    try {
      try {
        this.attempt(group, tails, false);
      } catch (error) {
        if (error !== WORK_FAILED) throw error;
        this.attempt(group, tails, true);
      }
    } catch (error) {
      for (const { reject } of group) reject(error);
      return;
    }
    for (const write of group) {
      if (!write.ok) {
        write.reject(write.value);
        continue;
      }
      if (write.committed) told(write.committed, write.value);
      write.resolve(write.value);
    }
  }

  /** the group in one transaction: together (a failing work aborts it) or isolated (each work under a savepoint) */
  private attempt(group: Pending[], tails: Set<() => void>, isolated: boolean): void {
    this.generation++;
    this.counts.clear();
    try {
      this.groupTransaction(group, tails, isolated);
    } catch (error) {
      // better-sqlite3 rolled the transaction back (a failed COMMIT included), or SQLite ended it
      this.rollbacks++;
      throw error;
    }
  }

  /** one attempt's work, in the transaction `attempt` runs it in; each write's outcome kept on it */
  private group(group: Pending[], tails: Set<() => void>, isolated: boolean): void {
    this.othersCommits.readInTransaction();
    for (const write of group) {
      const { work } = write;
      const counted = isolated ? this.counts.snapshot() : undefined;
      try {
        // nested in the group's transaction, db.transaction is a savepoint
        write.value = isolated ? this.db.transaction(work)() : work();
        write.ok = true;
      } catch (error) {
        // SQLite ended the transaction itself: nothing of the group is kept
        if (!this.db.inTransaction) throw error;
        if (counted) this.counts.restore(counted);
        // without a savepoint, what the work wrote before it threw would commit: roll back
        // (a lone work fails as itself, there is no other to commit)
        if (!isolated) throw group.length > 1 ? WORK_FAILED : error;
        // its savepoint was rolled back
        this.rollbacks++;
        write.ok = false;
        write.value = error;
      }
    }
    for (const tail of tails) {
      try {
        tail();
      } catch (error) {
        if (!this.db.inTransaction) throw error;
      }
    }
    this.counts.write();
  }
}

/** an after-commit listener's fault is its own: the group's other writes still settle */
function told(committed: (value: unknown) => void, value: unknown): void {
  try {
    committed(value);
  } catch {
    // the listener reports its own faults
  }
}
