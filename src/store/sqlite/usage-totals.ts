import type { UsageLimit, UsageSpent } from '../port.js';
import { DAY_MS, dayOf, daysFrom, whomOf } from '../rows/usage-totals.js';
import type { GroupCommit } from './group-commit.js';
import type { SqliteDatabase } from './open-database.js';
import { TrackedHolders } from './tracked-holders.js';

type Whose = UsageLimit['whose'];

/** a day's row takes what is written to it on top of what it held */
const ADDED = `ON CONFLICT (whom, day) DO UPDATE SET tokens = tokens + excluded.tokens, cost = cost + excluded.cost,
  settled_tokens = settled_tokens + excluded.settled_tokens, settled_cost = settled_cost + excluded.settled_cost`;

/**
 * A key's or agent's days (rows/usage-totals.ts), kept only for the ones a budget asked about:
 * `usage_tracked` holds, for each, the first day its totals are kept from; every usage row of
 * such a holder from that day on adds itself to its day in the work that writes it, and a row of
 * anyone else writes nothing more than itself, and reads nothing (tracked-holders.ts remembers who has none).
 * The first time what someone spent since a day is asked, their days from then on are summed
 * from the usage rows once, in one work of the group commit: one process writes the file, so no
 * row comes between the sum and the totals kept from it.
 */
export function sqliteUsageTotals(db: SqliteDatabase, commits: GroupCommit) {
  const holders = new TrackedHolders(db, commits);
  // what a row adds to its holder's day, when that holder's totals are kept and reach back to the day
  const add = db.prepare<[string, number, number, number, number, number, string, number]>(
    `INSERT INTO usage_totals (whom, day, tokens, cost, settled_tokens, settled_cost)
     SELECT ?, ?, ?, ?, ?, ? FROM usage_tracked WHERE whom = ? AND since <= ?
     ${ADDED}`,
  );
  const trackedSince = db.prepare<[string], number>('SELECT since FROM usage_tracked WHERE whom = ?').pluck();
  const markTracked = db.prepare<[string, number]>('INSERT INTO usage_tracked (whom, since) VALUES (?, ?) ON CONFLICT (whom) DO UPDATE SET since = excluded.since');
  // a holder's days in [from, until) summed from its usage rows (ids never below their time's: usage-repo.ts)
  const sumDays = (column: string) =>
    db.prepare<[string, number, number, number, string]>(
      `INSERT INTO usage_totals (whom, day, tokens, cost, settled_tokens, settled_cost)
       SELECT ?, (at / ${DAY_MS}) * ${DAY_MS} AS d, SUM(total_tokens), SUM(cost), SUM(CASE WHEN calls > 0 THEN total_tokens ELSE 0 END), SUM(CASE WHEN calls > 0 THEN cost ELSE 0 END)
       FROM usage WHERE id >= ? * 1000 AND at >= ? AND at < ? AND ${column} = ? GROUP BY d
       ${ADDED}`,
    );
  const sums = { key: sumDays('key_name'), agent: sumDays('agent_id') };
  const spentDays = (settled: boolean) =>
    db.prepare<[string, number], UsageSpent>(
      `SELECT COALESCE(SUM(${settled ? 'settled_tokens' : 'tokens'}), 0) AS tokens, COALESCE(SUM(${settled ? 'settled_cost' : 'cost'}), 0) AS cost
       FROM usage_totals WHERE whom = ? AND day >= ?`,
    );
  // the part of a day before the whole days: from the ids of `since` on to the table's end, so a
  // row filed past its time (a clock set back) is found (a budget's day or month starts a day: budgets never read these)
  const spentPart = (column: string, settled: boolean) =>
    db.prepare<[number, number, number, string], UsageSpent>(
      `SELECT COALESCE(SUM(total_tokens), 0) AS tokens, COALESCE(SUM(cost), 0) AS cost FROM usage
       WHERE id >= ? * 1000 AND at >= ? AND at < ? AND ${column} = ?${settled ? ' AND calls > 0' : ''}`,
    );
  const days = [spentDays(false), spentDays(true)] as const;
  const parts = { key: [spentPart('key_name', false), spentPart('key_name', true)], agent: [spentPart('agent_id', false), spentPart('agent_id', true)] } as const;
  const holder = (whose: Whose) => ('keyName' in whose ? (['key', whose.keyName] as const) : (['agent', whose.agentId] as const));

  return {
    /** what a usage row of `at` adds (or, negative, takes) to its key's and agent's days, for the ones kept (a work of the group commit) */
    add(keyName: string | null | undefined, agentId: string | null | undefined, at: number, tokens: number, cost: number, settledTokens: number, settledCost: number): void {
      const day = dayOf(at);
      const kept = (whom: string) => (holders.of(whom) ?? Infinity) <= day;
      if (keyName != null && kept(`key:${keyName}`)) add.run(`key:${keyName}`, day, tokens, cost, settledTokens, settledCost, `key:${keyName}`, day);
      if (agentId != null && kept(`agent:${agentId}`)) add.run(`agent:${agentId}`, day, tokens, cost, settledTokens, settledCost, `agent:${agentId}`, day);
    },
    /** whether `whose` spent since `since` is read from totals already kept (else: `track` first, in a work of the group commit) */
    kept(whose: Whose, since: number): boolean {
      const from = trackedSince.get(whomOf(whose));
      return from !== undefined && from <= daysFrom(since);
    },
    /** keeps `whose` days from the day `since` needs on: the days not kept yet summed from the rows (a work of the group commit) */
    track(whose: Whose, since: number): void {
      const whom = whomOf(whose);
      const from = daysFrom(since);
      const kept = trackedSince.get(whom);
      if (kept !== undefined && kept <= from) return;
      const [kind, name] = holder(whose);
      sums[kind].run(whom, from, from, kept ?? Number.MAX_SAFE_INTEGER, name);
      markTracked.run(whom, from);
      holders.tracked(whom, from);
    },
    /** what `whose` spent since `since`, from totals kept (`kept`) and the rows of the part of a day before them */
    spent(whose: Whose, since: number, settled = false): UsageSpent {
      const from = daysFrom(since);
      const whole = days[settled ? 1 : 0].get(whomOf(whose), from)!;
      if (from === since) return { tokens: whole.tokens, cost: whole.cost };
      const [kind, name] = holder(whose);
      const rest = parts[kind][settled ? 1 : 0].get(since, since, from, name)!;
      return { tokens: whole.tokens + rest.tokens, cost: whole.cost + rest.cost };
    },
  };
}
