/** most items one statement takes, as herald's (src/store/postgres/turn-batch.ts) */
const MAX_BATCH = 256;

/**
 * The baseline's turn batch on PostgreSQL, the algorithm herald's adapter sends its wakes,
 * receipts and runs with (src/store/postgres/turn-batch.ts), written out here so the baseline
 * stays free of herald imports: the items asked for in one event-loop turn go to `send` together,
 * as ONE statement in autocommit (one round trip, one commit). `inFlight` is how many statements
 * may be on their way at once, as herald's: with 1 (its wakes and receipts) the items of the turns
 * after a statement gather while it is on its way and go in the next one; without a limit (its
 * runs) each turn's statement goes at once. Each caller's promise settles once its statement
 * returned, so an answer still means durable. A burst beyond 256 items is cut into several
 * statements. It keeps none of herald's retry of a failed item alone: the baseline's writes do not
 * fail, and when one does, its batch fails with it.
 */
export function pgTurnBatch<T, R>(send: (items: T[]) => Promise<R[]>, inFlight = 1): (item: T) => Promise<R> {
  type Pending = { item: T; resolve: (result: R) => void; reject: (error: unknown) => void };
  const pending: Pending[] = [];
  let scheduled: NodeJS.Immediate | undefined;
  let sending = 0;
  const flush = () => {
    scheduled = undefined;
    while (pending.length && sending < inFlight) {
      sending++;
      const batch = pending.splice(0, MAX_BATCH);
      void send(batch.map((p) => p.item))
        .then(
          (results) => batch.forEach(({ resolve }, i) => resolve(results[i]!)),
          (error) => batch.forEach(({ reject }) => reject(error)),
        )
        .finally(() => {
          sending--;
          // what gathered meanwhile goes now, unless a turn is still asking (its flush sends it)
          if (!scheduled) flush();
        });
    }
  };
  return (item) =>
    new Promise<R>((resolve, reject) => {
      pending.push({ item, resolve, reject });
      // after the poll phase: every request read in this turn has asked by then
      scheduled ??= setImmediate(flush);
    });
}
