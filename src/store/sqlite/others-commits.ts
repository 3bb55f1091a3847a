import type { SqliteDatabase } from './open-database.js';

/**
 * Whether another connection committed to the file (a second process on it: a CLI command), as
 * `PRAGMA data_version` tells it: what this process holds in memory of the database (the event
 * queues, the knowledge caches) is dropped when the version moves.
 *
 * Asked outside a transaction, the PRAGMA opens a read transaction of its own, and that is the
 * WAL's locks, many times what the statement costs inside a transaction: so the version is
 * asked at most once per event-loop turn, and a group commit's transaction, which holds them
 * already, answers it for the turn it runs in. Every run a turn executes after its claim commits
 * then reads the caches without asking.
 */
export class OthersCommits {
  private readonly pragma;
  private version: number;
  private checkedThisTurn = false;

  constructor(db: SqliteDatabase) {
    this.pragma = db.prepare<[], number>('PRAGMA data_version').pluck();
    this.version = this.pragma.get()!;
  }

  /** the version as of this event-loop turn: another connection's commit seen from the next turn on */
  now(): number {
    if (!this.checkedThisTurn) this.read();
    return this.version;
  }

  /**
   * reads the version in a transaction the caller holds (BEGIN IMMEDIATE: nothing else commits
   * until it ends): `now()` answers with it for the rest of the turn
   */
  readInTransaction(): void {
    this.read();
  }

  private read(): void {
    this.version = this.pragma.get()!;
    if (this.checkedThisTurn) return;
    this.checkedThisTurn = true;
    setImmediate(this.nextTurn);
  }

  private readonly nextTurn = () => {
    this.checkedThisTurn = false;
  };
}
