import type { SqliteDatabase } from './open-database.js';

/**
 * Whether another connection committed to the file (a second process on it: a CLI command), as
 * `PRAGMA data_version` tells it: what this process holds in memory of the database (the event
 * queues, the knowledge caches) is dropped when the version moves.
 *
 * Asked outside a transaction, the PRAGMA opens a read transaction of its own, and that is the
 * WAL's locks, many times what the statement costs inside a transaction: so `now()` asks at most
 * once per callback the event loop runs, its microtasks included (the answer is dropped by a tick
 * queued once they have all run, before the loop goes on). An answer kept longer (until the
 * next check phase, as it once was) would answer a request the next poll phase reads, which may
 * have been sent after another process's commit that came after the read: a hook run's search in
 * the check phase, right after its claim's commit, did that. A group commit's transaction, which
 * holds the locks already, reads it for its own works (`inTransaction`), and that read is the
 * callback's answer too: the runs its commit completes and claims search in the microtasks after
 * it, and no request read after the callback is answered from it.
 */
export class OthersCommits {
  private readonly pragma;
  private version: number;
  private checkedThisTurn = false;
  /** the version as the running group commit's attempt read it, at its start */
  inTransaction: number;

  constructor(db: SqliteDatabase) {
    this.pragma = db.prepare<[], number>('PRAGMA data_version').pluck();
    this.version = this.pragma.get()!;
    this.inTransaction = this.version;
  }

  /** the version as of this callback: another connection's commit seen from the next one on */
  now(): number {
    if (!this.checkedThisTurn) this.answerThisTurn(this.pragma.get()!);
    return this.version;
  }

  /**
   * reads the version in a transaction the caller holds (BEGIN IMMEDIATE: nothing else commits
   * until it ends), for the works it runs (`inTransaction`), and for the rest of this callback (now())
   */
  readInTransaction(): void {
    this.inTransaction = this.pragma.get()!;
    this.answerThisTurn(this.inTransaction);
  }

  /** `version` is the answer until this callback's microtasks have all run (a fresher read replaces it) */
  private answerThisTurn(version: number): void {
    this.version = version;
    if (this.checkedThisTurn) return;
    this.checkedThisTurn = true;
    queueMicrotask(this.afterMicrotasks);
  }

  /**
   * a tick queued from a microtask runs once the microtask queue is empty (the chains of promises
   * the callback set going, the runs' turns among them), and before the event loop goes on
   */
  private readonly afterMicrotasks = () => process.nextTick(this.nextTurn);

  private readonly nextTurn = () => {
    this.checkedThisTurn = false;
  };
}
