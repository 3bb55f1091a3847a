import type { UsageEntry, UsageLimit, UsageRepo } from '../port.js';
import { toUsageRow, usageGroupColumn, type UsageReportRow } from '../rows/usage-columns.js';
import { usageRows } from '../rows/usage-calls.js';
import type { GroupCommit } from './group-commit.js';
import type { SqliteDatabase } from './open-database.js';
import { sqliteUsageTotals } from './usage-totals.js';

/**
 * A row's id carries its time (migration 51): at * 1000, or one past the largest id when that is
 * larger (another row of the same millisecond, a clock set back). So ids ascend, a row's id is
 * never below at * 1000, and the usage report reads a time range from the table's own B-tree, with
 * no index by time for every row to write. The largest id is a seek to the table's last page,
 * which the insert writes anyway.
 */
const TIMED_ID = '(SELECT MAX(? * 1000, COALESCE(MAX(id), 0) + 1) FROM usage)';

/**
 * How far past its time a row's id may run (rows of one millisecond beyond a thousand, a clock
 * set back): the report's range of ids reaches this far past its `until`, then keeps the rows by
 * their `at`. A row filed further out (the clock set back by more) is left out of a report that
 * ends within this span before its id's time.
 */
export const USAGE_ID_LAG_MS = 86_400_000;

/** a settled promise, the placeholder of a gathering group's `written` */
const WRITTEN = Promise.resolve();

export function sqliteUsageRepo(db: SqliteDatabase, commits: GroupCommit): UsageRepo {
  // positional: one call per model call (every run's and every chat's), where named parameters cost an object and its lookups
  const insert = db.prepare<[number, number, string, string, string | null, string | null, string | null, number, number, number, number, number, number]>(
    `INSERT INTO usage (id, at, source, model, key_name, agent_id, mapping_id, prompt_tokens, completion_tokens, total_tokens, estimated, cost, calls)
     VALUES (${TIMED_ID}, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  // what a row adds to its key's and agent's days, for the ones kept: in the same work as the row, so in its commit
  const totals = sqliteUsageTotals(db, commits);
  const total = totals.add;
  // the calls of one moment alike in whom they count against are one row (usage-calls.ts)
  const insertAll = (entries: UsageEntry[]) => {
    for (const { entry: e, calls } of usageRows(entries)) {
      insert.run(e.at, e.at, e.source, e.model, e.keyName ?? null, e.agentId ?? null, e.mappingId ?? null, e.promptTokens, e.completionTokens, e.totalTokens, e.estimated ? 1 : 0, e.cost, calls);
      total(e.keyName, e.agentId, e.at, e.totalTokens, e.cost, e.totalTokens, e.cost);
    }
  };
  // a reserved row as it stands, for what its settling or release takes off its totals
  const reserved = db.prepare<[number], { at: number; key_name: string | null; agent_id: string | null; total_tokens: number; cost: number; calls: number }>(
    'SELECT at, key_name, agent_id, total_tokens, cost, calls FROM usage WHERE id = ?',
  );
  // a reservation: 0 calls until settled
  const insertReservation = db.prepare<[number, number, string, string, string | null, string | null, string | null, number, number, number, number]>(
    `INSERT INTO usage (id, at, source, model, key_name, agent_id, mapping_id, prompt_tokens, completion_tokens, total_tokens, estimated, cost, calls)
     VALUES (${TIMED_ID}, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, 0)`,
  );
  const settle = db.prepare<[string, number, number, number, number, number, number]>(
    'UPDATE usage SET model = ?, prompt_tokens = ?, completion_tokens = ?, total_tokens = ?, estimated = ?, cost = ?, calls = 1 WHERE id = ?',
  );
  const release = db.prepare<[number]>('DELETE FROM usage WHERE id = ?');
  // the entries asked for while one group commit gathers, written by ONE work of it: every run's
  // and every chat's call adds one, where a work (and a promise) each would cost more than its insert
  let gathering: { entries: UsageEntry[]; written: Promise<void> } | undefined;
  return {
    // in the group commit, beside the transcripts and runs of the same turn: no transaction of its own per batch.
    // The calls that joined one group share its promise
    record(entries) {
      if (!entries.length) return WRITTEN;
      if (gathering) {
        gathering.entries.push(...entries);
        return gathering.written;
      }
      // `written` is the group commit's promise from the next line on; until then a placeholder made once, not one per group
      const group = { entries: [...entries], written: WRITTEN };
      gathering = group;
      // run by the group's flush (synchronous: nothing joins once it began); run again if the attempt is, with the same entries
      group.written = commits.run(() => {
        if (gathering === group) gathering = undefined;
        insertAll(group.entries);
      });
      return group.written;
    },
    // check and insert in one work of the group commit: one process writes the file, so nothing comes between them
    reserve(entry, limits) {
      return commits.run(() => {
        for (const limit of limits) {
          totals.track(limit.whose, limit.since);
          const spent = totals.spent(limit.whose, limit.since);
          if ((limit.tokens !== undefined && spent.tokens >= limit.tokens) || (limit.cost !== undefined && spent.cost >= limit.cost)) return { refused: limit, spent };
        }
        const e = entry;
        const id = Number(insertReservation.run(e.at, e.at, e.source, e.model, e.keyName ?? null, e.agentId ?? null, e.mappingId ?? null, e.promptTokens, e.completionTokens, e.totalTokens, e.cost).lastInsertRowid);
        // spent at once; settled only once settled
        total(e.keyName, e.agentId, e.at, e.totalTokens, e.cost, 0, 0);
        return { id };
      });
    },
    settle(id, e) {
      return commits.run(() => {
        const old = reserved.get(id);
        if (!old) return;
        // the row's day loses what it held (its estimate, or what a settling before wrote) and gains what it holds now
        const [wasTokens, wasCost] = old.calls > 0 ? [old.total_tokens, old.cost] : [0, 0];
        if (e) {
          settle.run(e.model, e.promptTokens, e.completionTokens, e.totalTokens, e.estimated ? 1 : 0, e.cost, id);
          total(old.key_name, old.agent_id, old.at, e.totalTokens - old.total_tokens, e.cost - old.cost, e.totalTokens - wasTokens, e.cost - wasCost);
        } else {
          release.run(id);
          total(old.key_name, old.agent_id, old.at, -old.total_tokens, -old.cost, -wasTokens, -wasCost);
        }
      });
    },
    async spent(whose, since, settled = false) {
      // asked about for the first time (a budget's first check): its days summed once, then kept
      if (!totals.kept(whose, since)) await commits.run(() => totals.track(whose, since));
      return totals.spent(whose, since, settled);
    },
    async report(query) {
      const column = usageGroupColumn[query.by];
      const day = query.perDay ? `strftime('%Y-%m-%d', at / 1000, 'unixepoch')` : undefined;
      const since = Math.max(0, query.since ?? 0);
      const until = query.until ?? Number.MAX_SAFE_INTEGER;
      const rows = db
        .prepare<[number, number, number, number], UsageReportRow>(
          `SELECT ${column} AS grp, ${day ? `${day} AS day,` : ''} SUM(calls) AS requests, SUM(prompt_tokens) AS prompt_tokens,
             SUM(completion_tokens) AS completion_tokens, SUM(total_tokens) AS total_tokens,
             SUM(CASE WHEN estimated THEN total_tokens ELSE 0 END) AS estimated_tokens, SUM(cost) AS cost
           FROM usage WHERE id >= ? * 1000 AND id < ? AND at >= ? AND at < ?
           GROUP BY grp${day ? ', day' : ''} ORDER BY ${day ? 'day, ' : ''}total_tokens DESC, grp`,
        )
        .all(since, query.until === undefined ? Number.MAX_SAFE_INTEGER : Math.min(Number.MAX_SAFE_INTEGER, (query.until + USAGE_ID_LAG_MS) * 1000), since, until);
      return rows.map(toUsageRow);
    },
  };
}
