import type pg from 'pg';
import type { PgGroupCommit } from './group-commit.js';
import { isConnectionError, translate } from './pg-pool.js';

type Outcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

interface Queued<I, R> {
  item: I;
  resolve: (value: R) => void;
  reject: (error: unknown) => void;
}

/**
 * How long the completions asked for after a batch of several wait for others before their own
 * batch is sent (ms). A batch's transaction costs about the same however many completions it
 * carries, so under load a batch sent the moment its first completion arrives carries few and
 * each pays more of it; a short wait lets the runs finishing meanwhile share it. Much longer and
 * the wait stops gathering and only holds execution back. A lone completion after a lone one (an
 * idle gateway) goes at once.
 */
const GATHER_MS = 1;

/** writes the items given, in one go, and answers each one's result in their order */
export type CompletionWriter<I, R> = (client: pg.PoolClient, items: I[]) => Promise<R[]>;

/**
 * Run completions asked for while the previous completions transaction is on its way, written by
 * ONE work of the group commit (`commits`, one transaction in flight) with `write`: one round
 * trip for all of them where each took its own, one after another, with the connection idle in
 * its transaction between them. The items keep the order asked. An item that fails fails alone:
 * the batch is under a savepoint, and when it fails each item is written again alone, under a
 * savepoint of its own. A lone item needs no savepoint: its failure is its work's.
 * Each caller's promise settles once the transaction committed. After a batch of several, the
 * next waits GATHER_MS for the completions on their way.
 */
export class CompletionBatch<I, R> {
  private queued: Queued<I, R>[] = [];
  /** how many items the last batch carried */
  private lastSize = 0;
  /** the next batch waiting out its gathering pause */
  private gathering?: NodeJS.Timeout;

  constructor(
    private readonly commits: PgGroupCommit,
    private readonly write: CompletionWriter<I, R>,
    private readonly gatherMs = GATHER_MS,
  ) {}

  add(item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queued.push({ item, resolve, reject });
      if (this.queued.length !== 1) return;
      if (this.lastSize > 1) this.gathering = setTimeout(() => this.flush(), this.gatherMs);
      else this.schedule();
    });
  }

  /** sends the batch waiting out its pause now (a closing store's, before its group commit drains) */
  flush(): void {
    if (!this.gathering) return;
    clearTimeout(this.gathering);
    this.gathering = undefined;
    this.schedule();
  }

  private schedule(): void {
    // taken when the work first runs (everything asked for until then), kept if the group commit runs it again
    let taken: Queued<I, R>[] | undefined;
    const take = () => {
      if (!taken) {
        taken = this.queued.splice(0);
        this.lastSize = taken.length;
      }
      return taken;
    };
    this.commits
      .run((client) => this.writeAll(client, take().map((q) => q.item)))
      .then(
        (outcomes) =>
          take().forEach((q, i) => {
            const outcome = outcomes[i]!;
            if (outcome.ok) q.resolve(outcome.value);
            else q.reject(outcome.error);
          }),
        (error: unknown) => take().forEach((q) => q.reject(error)),
      );
  }

  private async writeAll(client: pg.PoolClient, items: I[]): Promise<Outcome<R>[]> {
    if (items.length === 1) return (await this.write(client, items)).map((value) => ({ ok: true, value }));
    const all = await this.underSavepoint(client, () => this.write(client, items));
    if (all.ok) return all.value.map((value) => ({ ok: true, value }));
    const outcomes: Outcome<R>[] = [];
    for (const item of items) outcomes.push(await this.underSavepoint(client, async () => (await this.write(client, [item]))[0]!));
    return outcomes;
  }

  /** what `work` wrote, or nothing of it (rolled back to the savepoint) and its error */
  private async underSavepoint<T>(client: pg.PoolClient, work: () => Promise<T>): Promise<Outcome<T>> {
    await client.query('SAVEPOINT completion');
    try {
      const value = await work();
      await client.query('RELEASE SAVEPOINT completion');
      return { ok: true, value };
    } catch (error) {
      if (isConnectionError(error)) throw error;
      await client.query('ROLLBACK TO SAVEPOINT completion');
      return { ok: false, error: translate(error) };
    }
  }
}
