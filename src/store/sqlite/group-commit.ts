import type { SqliteDatabase } from './open-database.js';

interface Pending {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: writes asked for in the same event-loop turn (the requests of one poll phase,
 * the runs finishing beside them) run in ONE transaction, and each caller's promise settles only
 * once that transaction committed. A commit costs far more than an insert, so under load this is
 * where the time went; the guarantee is unchanged: resolved means durable.
 *
 * Each `work` must be synchronous and atomic by itself (one statement, or a `db.transaction`,
 * which nests as a savepoint): a work that throws fails alone, the others still commit. An error
 * that ends the whole transaction (disk full, I/O) fails every write of the group.
 */
export class GroupCommit {
  private pending: Pending[] = [];
  /** run once after the group's writes, in its transaction (see `last`) */
  private tails = new Set<() => void>();
  /** counts the groups: what a write left for its group's `last` work is known by it (a failed group leaves some behind) */
  generation = 0;
  private scheduled?: NodeJS.Immediate;

  constructor(private readonly db: SqliteDatabase) {}

  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ work, resolve: resolve as (value: unknown) => void, reject });
      // after the poll phase: every request read in this turn has queued its write by then
      this.scheduled ??= setImmediate(() => this.flush());
    });
  }

  /**
   * Runs `work` once after every write of the group now being gathered, in the same transaction
   * (asked again in the same group, it still runs once): for work the writes of a group share,
   * such as the one claim for every run completed in it. Synchronous and atomic like a write; a
   * throw is its own failure (the writes are committed all the same): `work` reports it itself.
   */
  last(work: () => void): void {
    this.tails.add(work);
  }

  /** commits what is queued now (also called before the database closes) */
  flush(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    const group = this.pending;
    const tails = this.tails;
    this.pending = [];
    this.tails = new Set();
    if (group.length === 0) return;
    this.generation++;
    const outcomes: { ok: boolean; value: unknown }[] = [];
    try {
      this.db
        .transaction(() => {
          for (const { work } of group) {
            try {
              outcomes.push({ ok: true, value: work() });
            } catch (error) {
              // SQLite ended the transaction itself: nothing of the group is kept
              if (!this.db.inTransaction) throw error;
              outcomes.push({ ok: false, value: error });
            }
          }
          for (const tail of tails) {
            try {
              tail();
            } catch (error) {
              if (!this.db.inTransaction) throw error;
            }
          }
        })
        .immediate();
    } catch (error) {
      for (const { reject } of group) reject(error);
      return;
    }
    group.forEach(({ resolve, reject }, i) => (outcomes[i]!.ok ? resolve : reject)(outcomes[i]!.value));
  }
}
