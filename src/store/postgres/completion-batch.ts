import type pg from 'pg';
import { StoreUnavailableError } from '../../errors.js';
import type { PgGroupCommit } from './group-commit.js';

interface Queued<I, R> {
  item: I;
  resolve: (value: R) => void;
  reject: (error: unknown) => void;
}

/** writes the items given, in one go, and answers each one's result in their order */
export type CompletionWriter<I, R> = (client: pg.PoolClient, items: I[]) => Promise<R[]>;

/**
 * Run completions asked for while the previous completions transaction is on its way, written by
 * ONE work of the group commit (`commits`, one transaction in flight) with `write`: one round
 * trip for all of them where each took its own, one after another, with the connection idle in
 * its transaction between them. The items keep the order asked.
 * An item that fails fails alone, on the group commit's pattern: the batch goes without a
 * savepoint (one around it and its release were two round trips more than the batch itself),
 * and when it fails each item is asked again as a work of its own, which the group commit
 * commits together and isolates only if one fails again.
 * Each caller's promise settles once the transaction committed.
 */
export class CompletionBatch<I, R> {
  private queued: Queued<I, R>[] = [];

  constructor(
    private readonly commits: PgGroupCommit,
    private readonly write: CompletionWriter<I, R>,
  ) {}

  add(item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queued.push({ item, resolve, reject });
      if (this.queued.length === 1) this.schedule();
    });
  }

  private schedule(): void {
    // taken when the work first runs (everything asked for until then), kept if the group commit runs it again
    let taken: Queued<I, R>[] | undefined;
    const take = () => (taken ??= this.queued.splice(0));
    this.commits
      .run((client) => this.write(client, take().map((q) => q.item)))
      .then(
        (values) => take().forEach((q, i) => q.resolve(values[i]!)),
        (error: unknown) => {
          const batch = take();
          // a lone item's failure is its own; with the database away, each alone would fail as well
          if (batch.length === 1 || error instanceof StoreUnavailableError) batch.forEach((q) => q.reject(error));
          else batch.forEach((q) => this.alone(q));
        },
      );
  }

  private alone({ item, resolve, reject }: Queued<I, R>): void {
    this.commits.run((client) => this.write(client, [item])).then((values) => resolve(values[0]!), reject);
  }
}
