import type pg from 'pg';
import { query } from './pg-pool.js';

/** a statement and its values */
export interface Statement {
  text: string;
  values: unknown[];
}

interface Pending<T> {
  item: T;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** most rows one statement takes: a burst is cut into several statements, sent side by side */
const MAX_BATCH = 256;

/**
 * Inserts asked for in one event-loop turn sent as ONE statement (`statement` makes it from the
 * turn's items, in the order asked), in autocommit: one round trip and one commit for the turn
 * instead of one each. Each caller's promise settles once that statement committed: resolved still
 * means durable. When a statement of several items fails, each item is tried again alone, so a bad
 * item fails by itself and the others are written.
 */
export class PgTurnBatch<T> {
  private pending: Pending<T>[] = [];
  private scheduled?: NodeJS.Immediate;
  private readonly sending = new Set<Promise<void>>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly statement: (items: T[]) => Statement,
  ) {}

  add(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      // after the poll phase: every request read in this turn has asked for its insert by then
      this.scheduled ??= setImmediate(() => this.flush());
    });
  }

  /** sends what is queued now and waits for every statement in flight (before the pool closes) */
  async drain(): Promise<void> {
    this.flush();
    await Promise.all([...this.sending]);
  }

  private flush(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    while (this.pending.length) {
      const sent = this.send(this.pending.splice(0, MAX_BATCH));
      this.sending.add(sent);
      void sent.finally(() => this.sending.delete(sent));
    }
  }

  private async send(batch: Pending<T>[]): Promise<void> {
    try {
      await this.run(batch.map((p) => p.item));
      for (const { resolve } of batch) resolve();
    } catch (error) {
      if (batch.length === 1) return batch[0]!.reject(error);
      await Promise.all(
        batch.map(({ item, resolve, reject }) =>
          this.run([item]).then(resolve, reject),
        ),
      );
    }
  }

  private async run(items: T[]): Promise<void> {
    const { text, values } = this.statement(items);
    await query(this.pool, text, values);
  }
}
