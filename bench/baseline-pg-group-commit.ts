import type pg from 'pg';

/** most writes one transaction takes, as herald's (src/store/postgres/group-commit.ts) */
const MAX_GROUP = 256;

/**
 * The baseline's group commit on PostgreSQL, the algorithm of herald's PostgreSQL adapter
 * (src/store/postgres/group-commit.ts), written out here so the baseline stays free of herald
 * imports: the writes asked for in one event-loop turn run in ONE transaction on one pooled
 * connection, one after the other, and each caller's promise settles once it committed. A burst
 * is cut into transactions of at most 256 writes, run side by side. It keeps none of herald's
 * retry of a failed write alone: the baseline's writes do not fail, and when one does, its group
 * fails with it. Without grouping the baseline paid one commit (a WAL flush) per write where
 * herald paid one per turn.
 */
export function pgGroupCommit(pool: pg.Pool): <T>(work: (client: pg.PoolClient) => Promise<T>) => Promise<T> {
  type Pending = { work: (client: pg.PoolClient) => Promise<unknown>; resolve: (v: unknown) => void; reject: (e: unknown) => void };
  let pending: Pending[] = [];
  let scheduled: NodeJS.Immediate | undefined;
  const commit = async (group: Pending[]) => {
    const client = await pool.connect();
    const values: unknown[] = [];
    try {
      await client.query('BEGIN');
      for (const { work } of group) values.push(await work(client));
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      for (const { reject } of group) reject(error);
      return;
    } finally {
      client.release();
    }
    group.forEach(({ resolve }, i) => resolve(values[i]));
  };
  const flush = () => {
    scheduled = undefined;
    while (pending.length) void commit(pending.splice(0, MAX_GROUP)).catch((error) => process.stderr.write(`baseline: commit failed: ${(error as Error).message}\n`));
  };
  return <T>(work: (client: pg.PoolClient) => Promise<T>) =>
    new Promise<T>((resolve, reject) => {
      pending.push({ work, resolve: resolve as (v: unknown) => void, reject });
      scheduled ??= setImmediate(flush);
    });
}
