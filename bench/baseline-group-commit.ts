import type { Database } from 'better-sqlite3';

/** a write of a group run together failed: the attempt is rolled back, its group run again isolated */
const WORK_FAILED = Symbol('group write failed');

/**
 * The baseline's group commit, the same algorithm as herald's (src/store/sqlite/group-commit.ts),
 * written out here so the baseline stays free of herald imports: the writes asked for in two
 * event-loop turns run in ONE immediate transaction, without a savepoint each; a write that throws
 * rolls the attempt back and the group runs again with each write under its own savepoint. Each
 * caller's promise settles once the transaction committed. Without it the baseline paid one
 * commit per request while herald paid one per turn: a tilted race.
 */
export interface BaselineCommit {
  <T>(work: () => T): Promise<T>;
  /** runs `work` once after the writes of the group being gathered, in its transaction (herald's GroupCommit.last) */
  last(work: () => void): void;
  /** counts the attempts: what a write leaves for its group's `last` work is known by it (a retried group runs its writes again) */
  readonly generation: number;
  /** `listener` is called whenever an attempt's writes are rolled back (herald's GroupCommit.rollbacks) */
  onRollback(listener: () => void): void;
}

export function groupCommit(db: Database): BaselineCommit {
  type Pending = { work: () => unknown; resolve: (v: unknown) => void; reject: (e: unknown) => void };
  let pending: Pending[] = [];
  let tails = new Set<() => void>();
  let generation = 0;
  let scheduled: NodeJS.Immediate | undefined;
  const rollbackListeners: (() => void)[] = [];
  const rolledBack = () => rollbackListeners.forEach((listener) => listener());
  const attempt = (group: Pending[], groupTails: Set<() => void>, isolated: boolean) => {
    const outcomes: { ok: boolean; value: unknown }[] = [];
    generation++;
    db.transaction(() => {
      for (const { work } of group) {
        try {
          outcomes.push({ ok: true, value: isolated ? db.transaction(work)() : work() });
        } catch (error) {
          if (!db.inTransaction) throw error;
          if (!isolated) throw group.length > 1 ? WORK_FAILED : error;
          // its savepoint rolled back: what the work left in memory may be of writes undone
          rolledBack();
          outcomes.push({ ok: false, value: error });
        }
      }
      for (const tail of groupTails) tail();
    }).immediate();
    return outcomes;
  };
  const flush = () => {
    scheduled = undefined;
    const group = pending;
    const groupTails = tails;
    pending = [];
    tails = new Set();
    let outcomes: { ok: boolean; value: unknown }[];
    try {
      try {
        outcomes = attempt(group, groupTails, false);
      } catch (error) {
        rolledBack();
        if (error !== WORK_FAILED) throw error;
        outcomes = attempt(group, groupTails, true);
      }
    } catch (error) {
      rolledBack();
      for (const { reject } of group) reject(error);
      return;
    }
    group.forEach(({ resolve, reject }, i) => (outcomes[i]!.ok ? resolve : reject)(outcomes[i]!.value));
  };
  const commit = <T>(work: () => T) =>
    new Promise<T>((resolve, reject) => {
      pending.push({ work, resolve: resolve as (v: unknown) => void, reject });
      // after the next event-loop turn's poll phase too, as herald's (gatherOneMoreTurn)
      scheduled ??= setImmediate(() => (scheduled = setImmediate(flush)));
    });
  return Object.defineProperties(commit, {
    last: { value: (work: () => void) => void tails.add(work) },
    generation: { get: () => generation },
    onRollback: { value: (listener: () => void) => void rollbackListeners.push(listener) },
  }) as BaselineCommit;
}
