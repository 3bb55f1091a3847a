import type pg from 'pg';
import type { UsageLimit, UsageSpent } from '../contracts/usage-port.js';
import { DAY_MS, daysFrom, whomOf } from '../rows/usage-totals.js';
import { query, transaction, type Queryable } from './pg-pool.js';

type Whose = UsageLimit['whose'];

/** a day's row takes what is written to it on top of what it held */
const ADDED = `ON CONFLICT (whom, day) DO UPDATE SET tokens = usage_totals.tokens + excluded.tokens, cost = usage_totals.cost + excluded.cost,
  settled_tokens = usage_totals.settled_tokens + excluded.settled_tokens, settled_cost = usage_totals.settled_cost + excluded.settled_cost`;

/**
 * Adds the rows of `changed` (whom they count against, their time, and what they add: tokens,
 * cost, settled tokens, settled cost) to their keys' and agents' days (rows/usage-totals.ts), in
 * the statement that writes them, for the holders whose days are kept (`usage_tracked`) and reach
 * back to the row's day; a row of anyone else writes itself alone. Summed per day and ordered by
 * whom, so concurrent statements lock the totals' rows in one order (no deadlock) and none twice.
 */
export const addTotals = (changed: string) => `INSERT INTO usage_totals (whom, day, tokens, cost, settled_tokens, settled_cost)
   SELECT w.whom, (c.at / ${DAY_MS}) * ${DAY_MS}, SUM(c.tokens), SUM(c.cost), SUM(c.settled_tokens), SUM(c.settled_cost)
   FROM ${changed} c CROSS JOIN LATERAL (VALUES ('key:' || c.key_name), ('agent:' || c.agent_id)) AS w(whom)
     JOIN usage_tracked t ON t.whom = w.whom AND t.since <= (c.at / ${DAY_MS}) * ${DAY_MS}
   GROUP BY 1, 2 ORDER BY 1, 2
   ${ADDED}`;

const holder = (whose: Whose) => ('keyName' in whose ? (['key_name', whose.keyName] as const) : (['agent_id', whose.agentId] as const));

/**
 * A key's or agent's days, kept from the first time a budget asks what it spent (as on SQLite,
 * sqlite/usage-totals.ts): `keep` sums its days from the usage rows once and marks it tracked.
 *
 * Replicas write usage rows at once, so that sum must not miss a row another replica's
 * transaction has written and not committed yet, and no row may be written after the sum without
 * being added. The transaction that starts keeping someone's days therefore first takes
 * `LOCK TABLE usage IN SHARE ROW EXCLUSIVE MODE`. Every INSERT, UPDATE and DELETE of usage takes
 * ROW EXCLUSIVE, which conflicts with it, and the mode "protects a table against concurrent data
 * changes, and is self-exclusive so that only one session can hold it at a time"
 * (https://www.postgresql.org/docs/current/explicit-locking.html, "Table-Level Locks"): the lock
 * waits for every transaction that wrote usage to end, holds off the writes asked for meanwhile
 * (and another replica's `keep`) until this commits, and lets reads (ACCESS SHARE) through. So
 * the sum, a statement after the lock under READ COMMITTED, sees every row written so far; and a
 * write held off takes its statement's snapshot once it has its locks, after this commit, so it
 * sees the holder tracked and adds its row (`addTotals`; test/store/postgres-usage-totals.test.ts
 * fails without the lock). It is taken once per holder, never on a call's path once kept: days
 * are only added to what is kept, never taken off, so a holder kept from a day stays kept.
 */
export function postgresUsageTotals(pool: pg.Pool) {
  // from which day each holder asked about through this pool is kept: the table need not be read again
  const keptFrom = new Map<string, number>();
  const trackedSince = async (db: Queryable, whom: string) =>
    (await query<{ since: string }>(db, 'SELECT since FROM usage_tracked WHERE whom = $1', [whom])).rows.map((r) => Number(r.since))[0];

  return {
    /** keeps `whose` days from the day `since` needs on, the days not kept yet summed from the rows */
    async keep(whose: Whose, since: number): Promise<void> {
      const whom = whomOf(whose);
      const from = daysFrom(since);
      const known = keptFrom.get(whom) ?? (await trackedSince(pool, whom));
      if (known !== undefined && known <= from) return void keptFrom.set(whom, known);
      await transaction(pool, async (client) => {
        await client.query('LOCK TABLE usage IN SHARE ROW EXCLUSIVE MODE');
        // another replica may have kept them meanwhile
        const kept = await trackedSince(client, whom);
        if (kept !== undefined && kept <= from) return;
        const [column, name] = holder(whose);
        await client.query(
          `INSERT INTO usage_totals (whom, day, tokens, cost, settled_tokens, settled_cost)
           SELECT $1, (at / ${DAY_MS}) * ${DAY_MS} AS d, SUM(total_tokens), SUM(cost), SUM(CASE WHEN calls > 0 THEN total_tokens ELSE 0 END), SUM(CASE WHEN calls > 0 THEN cost ELSE 0 END)
           FROM usage WHERE at >= $2 AND at < $3 AND ${column} = $4 GROUP BY d
           ${ADDED}`,
          [whom, from, kept ?? Number.MAX_SAFE_INTEGER, name],
        );
        await client.query('INSERT INTO usage_tracked (whom, since) VALUES ($1, $2) ON CONFLICT (whom) DO UPDATE SET since = excluded.since', [whom, from]);
      });
      keptFrom.set(whom, from);
    },
    /**
     * what `whose` spent since `since` (kept from then: `keep`): its whole days from the totals,
     * and the part of a day before them (a `since` within a day; none for a budget's day or month) from its usage rows
     */
    async spent(db: Queryable, whose: Whose, since: number, settled = false): Promise<UsageSpent> {
      const [column, name] = holder(whose);
      const from = daysFrom(since);
      const part =
        from === since
          ? ''
          : ` UNION ALL SELECT total_tokens, cost FROM usage WHERE ${column} = $4 AND at >= $3 AND at < $2${settled ? ' AND calls > 0' : ''}`;
      const { rows } = await query<{ tokens: number; cost: number }>(
        db,
        `SELECT COALESCE(SUM(tokens), 0)::float8 AS tokens, COALESCE(SUM(cost), 0)::float8 AS cost FROM (
           SELECT ${settled ? 'settled_tokens' : 'tokens'} AS tokens, ${settled ? 'settled_cost' : 'cost'} AS cost FROM usage_totals WHERE whom = $1 AND day >= $2${part}) s`,
        from === since ? [whomOf(whose), from] : [whomOf(whose), from, since, name],
      );
      return { tokens: rows[0]?.tokens ?? 0, cost: rows[0]?.cost ?? 0 };
    },
  };
}
