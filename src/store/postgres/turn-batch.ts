import type pg from 'pg';
import { query, type Prepared } from './pg-pool.js';

/** a statement and its values */
export interface Statement {
  text: string | Prepared;
  values: unknown[];
}

interface Pending<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

/** what each item of a statement's batch gets: its result, read from the statement's rows */
export type ReadResults<T, R> = (rows: Record<string, unknown>[], items: T[]) => R[];

/** most rows one statement takes: a burst is cut into several statements, sent side by side */
const MAX_BATCH = 256;

/**
 * Inserts asked for in one event-loop turn sent as ONE statement (`statement` makes it from the
 * turn's items, in the order asked), in autocommit: one round trip and one commit for the turn
 * instead of one each. Each caller's promise settles once that statement committed: resolved still
 * means durable. When a statement of several items fails, each item is tried again alone, so a bad
 * item fails by itself and the others are written. `read` gives each item its result from the
 * statement's rows (none without it).
 *
 * `inFlight`: statements sent at once at most. With 1, the items asked for while a statement is
 * on its way wait for it and go together in the next: one commit (a WAL flush) for all of them
 * instead of one per turn, where each turn would bring one or two items (a run's usage entry, a
 * receipt) or the statements would only queue on a lock (the main session's, for wakes).
 */
export class PgTurnBatch<T, R = void> {
  private pending: Pending<T, R>[] = [];
  private scheduled?: NodeJS.Immediate;
  private readonly sending = new Set<Promise<void>>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly statement: (items: T[]) => Statement,
    private readonly read?: ReadResults<T, R>,
    private readonly inFlight = Number.POSITIVE_INFINITY,
  ) {}

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      // after the poll phase: every request read in this turn has asked for its insert by then
      this.scheduled ??= setImmediate(() => this.flush());
    });
  }

  /** sends what is queued now and waits for every statement in flight (before the pool closes) */
  async drain(): Promise<void> {
    this.flush();
    // a statement ending sends what waited behind it
    while (this.sending.size) await Promise.all([...this.sending]);
  }

  private flush(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    while (this.pending.length && this.sending.size < this.inFlight) {
      const sent = this.send(this.pending.splice(0, MAX_BATCH));
      this.sending.add(sent);
      void sent.finally(() => {
        this.sending.delete(sent);
        if (this.pending.length && !this.scheduled) this.flush();
      });
    }
  }

  private async send(batch: Pending<T, R>[]): Promise<void> {
    let results: R[];
    try {
      results = await this.run(batch.map((p) => p.item));
    } catch (error) {
      if (batch.length === 1) return batch[0]!.reject(error);
      // one after the other: the order asked for is the order written (ids and seqs follow it)
      for (const { item, resolve, reject } of batch) await this.run([item]).then((one) => resolve(one[0]!), reject);
      return;
    }
    batch.forEach(({ resolve }, i) => resolve(results[i]!));
  }

  private async run(items: T[]): Promise<R[]> {
    const { text, values } = this.statement(items);
    const { rows } = await query<Record<string, unknown>>(this.pool, text, values);
    return this.read ? this.read(rows, items) : (items.map(() => undefined) as R[]);
  }
}
