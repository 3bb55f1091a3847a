import type pg from 'pg';
import { isConnectionError, transaction, translate } from './pg-pool.js';

interface Pending {
  work: (client: pg.PoolClient) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

interface Outcome {
  ok: boolean;
  value: unknown;
}

/** a work of a group run together failed: the attempt is rolled back, its group run again isolated */
const WORK_FAILED = Symbol('group work failed');

/** SQLSTATE deadlock_detected */
const DEADLOCK = '40P01';

/** most works one transaction takes: a burst is cut into several transactions, run side by side */
const MAX_GROUP = 256;

/**
 * Group commit on PostgreSQL: writes asked for in one event-loop turn run in ONE transaction,
 * a work that fails fails alone (see `together`, `isolated`), and every caller's promise settles
 * once that transaction committed: resolved still means durable. What it saves is the commit's
 * WAL flush: a transaction per write would pay one each (bench/postgres.bench.ts shows the difference).
 *
 * A lost connection fails every work of the group (none of it committed). A work may run more
 * than once (a group run again, a deadlock's victim tried again): it only reads and writes through
 * the client it is given, and what a rolled-back run of it returned is thrown away.
 */
export class PgGroupCommit {
  private pending: Pending[] = [];
  private scheduled?: NodeJS.Immediate;
  private readonly committing = new Set<Promise<void>>();

  /**
   * @param inFlight how many of its transactions may be open at once: what is asked for while
   * they are goes together in the next. One at a time, each takes everything that finished
   * meanwhile, and its flush is shared by all of it, where side-by-side transactions of a few
   * works each would pay a flush each.
   */
  constructor(
    private readonly pool: pg.Pool,
    private readonly inFlight = Infinity,
  ) {}

  run<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ work, resolve: resolve as (value: unknown) => void, reject });
      // after the poll phase: every request read in this turn has queued its write by then
      this.scheduled ??= setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    while (this.pending.length && this.committing.size < this.inFlight) {
      const commit = this.commit(this.pending.splice(0, MAX_GROUP));
      this.committing.add(commit);
      void commit.finally(() => {
        this.committing.delete(commit);
        // what was asked for while the transactions in flight were full
        if (this.pending.length) this.flush();
      });
    }
  }

  /** commits what is queued now and waits for every commit in flight (before the pool closes) */
  async drain(): Promise<void> {
    this.flush();
    while (this.committing.size) await Promise.all([...this.committing]);
  }

  private async commit(group: Pending[]): Promise<void> {
    let outcomes: Outcome[];
    try {
      outcomes = await this.together(group).catch((error: unknown) => {
        if (error === WORK_FAILED) return this.isolated(group);
        throw error;
      });
    } catch (error) {
      for (const { reject } of group) reject(translate(error));
      return;
    }
    group.forEach(({ resolve, reject }, i) => (outcomes[i]!.ok ? resolve : reject)(outcomes[i]!.value));
  }

  /**
   * Every work one after the other, no savepoint: a savepoint and its release are two round
   * trips per work, more than a run's completion itself (one). A work that fails (PostgreSQL
   * aborts the whole transaction on any error, and a work that throws may have written half
   * of itself) fails the attempt: it is rolled back, and the group run again by `isolated`.
   */
  private together(group: Pending[]): Promise<Outcome[]> {
    return transaction(this.pool, async (client) => {
      const outcomes: Outcome[] = [];
      for (const { work } of group) {
        try {
          outcomes.push({ ok: true, value: await work(client) });
        } catch (error) {
          // a lone work fails as itself: there is no other to commit
          if (group.length === 1 || isConnectionError(error)) throw error;
          throw WORK_FAILED;
        }
      }
      return outcomes;
    });
  }

  /** each work under its own savepoint: one that fails is undone alone, the others commit */
  private isolated(group: Pending[]): Promise<Outcome[]> {
    return transaction(this.pool, async (client) => {
      const outcomes: Outcome[] = [];
      for (const { work } of group) {
        // a work chosen as a deadlock's victim is undone alone and tried once more (the other side went on)
        for (let attempt = 1; ; attempt++) {
          await client.query('SAVEPOINT work');
          try {
            outcomes.push({ ok: true, value: await work(client) });
            await client.query('RELEASE SAVEPOINT work');
            break;
          } catch (error) {
            if (isConnectionError(error)) throw error;
            await client.query('ROLLBACK TO SAVEPOINT work');
            if ((error as { code?: string }).code === DEADLOCK && attempt < 3) continue;
            outcomes.push({ ok: false, value: translate(error) });
            break;
          }
        }
      }
      return outcomes;
    });
  }
}
