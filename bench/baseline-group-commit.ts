import type { Database } from 'better-sqlite3';

/**
 * The baseline's group commit, the same algorithm as herald's (src/store/sqlite/group-commit.ts),
 * written out here so the baseline stays free of herald imports: the writes asked for in one
 * event-loop turn run in ONE immediate transaction (each a savepoint of its own when it is a
 * `db.transaction`), and each caller's promise settles once that transaction committed. Without
 * it the baseline paid one commit per request while herald paid one per turn: a tilted race.
 */
export function groupCommit(db: Database): <T>(work: () => T) => Promise<T> {
  let pending: { work: () => unknown; resolve: (v: unknown) => void; reject: (e: unknown) => void }[] = [];
  let scheduled: NodeJS.Immediate | undefined;
  const flush = () => {
    scheduled = undefined;
    const group = pending;
    pending = [];
    const outcomes: { ok: boolean; value: unknown }[] = [];
    try {
      db.transaction(() => {
        for (const { work } of group) {
          try {
            outcomes.push({ ok: true, value: work() });
          } catch (error) {
            if (!db.inTransaction) throw error;
            outcomes.push({ ok: false, value: error });
          }
        }
      }).immediate();
    } catch (error) {
      for (const { reject } of group) reject(error);
      return;
    }
    group.forEach(({ resolve, reject }, i) => (outcomes[i]!.ok ? resolve : reject)(outcomes[i]!.value));
  };
  return <T>(work: () => T) =>
    new Promise<T>((resolve, reject) => {
      pending.push({ work, resolve: resolve as (v: unknown) => void, reject });
      scheduled ??= setImmediate(flush);
    });
}
