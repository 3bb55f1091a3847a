/**
 * What a key or agent spent, kept per UTC day in `usage_totals` in the commit that writes its
 * usage rows, for budgets: a budget reads its holder's few day rows where it summed every row of
 * the holder since the start of its day or month, through an index of its own on the usage
 * table that every call wrote (usage_key, usage_agent). A day's row holds what every call of that
 * day spent, reservations in flight included (tokens, cost), and what settled calls spent
 * (settled_tokens, settled_cost): the alert rule's view. Both adapters keep them for the keys
 * and agents a budget asked about (sqlite/usage-totals.ts, postgres/usage-totals.ts).
 */
export const DAY_MS = 86_400_000;

/** the UTC day (its first millisecond) a usage row of `at` is totalled in */
export const dayOf = (at: number): number => Math.floor(at / DAY_MS) * DAY_MS;

/**
 * `since` split for a read of what was spent: the whole days from `days` on are read from the
 * totals, the part of a day before them (`since` to `days`, empty when `since` starts a day, as a
 * budget's day and month do) from the usage rows themselves
 */
export const daysFrom = (since: number): number => Math.ceil(since / DAY_MS) * DAY_MS;

/** whose a totals row is: `key:<name>` or `agent:<id>` */
export const whomOf = (whose: { keyName: string } | { agentId: string }): string => ('keyName' in whose ? `key:${whose.keyName}` : `agent:${whose.agentId}`);
