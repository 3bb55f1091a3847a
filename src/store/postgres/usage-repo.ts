import type pg from 'pg';
import type { UsageRepo } from '../port.js';
import type { UsageEntry } from '../contracts/usage-port.js';
import { toUsageRow, usageGroupColumn, type UsageReportRow } from '../rows/usage-columns.js';
import { usageRows } from '../rows/usage-calls.js';
import { whomOf } from '../rows/usage-totals.js';
import { prepared, query } from './pg-pool.js';
import { PgTurnBatch, type Statement } from './turn-batch.js';
import { addTotals, postgresUsageTotals } from './usage-totals.js';

const INSERT_USAGE = prepared(
  'insert_usage_totalled',
  `WITH added AS (
     INSERT INTO usage (at, source, model, key_name, agent_id, mapping_id, prompt_tokens, completion_tokens, total_tokens, estimated, cost, calls)
     SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[], $9::bigint[], $10::boolean[], $11::float8[], $12::int[])
     RETURNING at, key_name, agent_id, total_tokens AS tokens, cost, total_tokens AS settled_tokens, cost AS settled_cost)
   ${addTotals('added')}`,
);

// a reservation: spent at once, settled only once settled
const RESERVE = prepared(
  'reserve_usage',
  `WITH added AS (
     INSERT INTO usage (at, source, model, key_name, agent_id, mapping_id, prompt_tokens, completion_tokens, total_tokens, estimated, cost, calls)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, true, $10, 0)
     RETURNING id, at, key_name, agent_id, total_tokens AS tokens, cost, 0::bigint AS settled_tokens, 0::float8 AS settled_cost),
   totalled AS (${addTotals('added')})
   SELECT id FROM added`,
);

// a reserved row's day loses what the row held (its estimate, or what a settling before wrote) and gains what it holds now
const SETTLE = prepared(
  'settle_usage',
  `WITH old AS (SELECT id, at, key_name, agent_id, total_tokens, cost, calls FROM usage WHERE id = $7 FOR UPDATE),
   settled AS (UPDATE usage u SET model = $1, prompt_tokens = $2, completion_tokens = $3, total_tokens = $4, estimated = $5, cost = $6, calls = 1 FROM old WHERE u.id = old.id),
   changed AS (SELECT at, key_name, agent_id, $4::bigint - total_tokens AS tokens, $6::float8 - cost AS cost,
                 $4::bigint - CASE WHEN calls > 0 THEN total_tokens ELSE 0 END AS settled_tokens, $6::float8 - CASE WHEN calls > 0 THEN cost ELSE 0 END AS settled_cost FROM old)
   ${addTotals('changed')}`,
);

const RELEASE = prepared(
  'release_usage',
  `WITH old AS (DELETE FROM usage WHERE id = $1 RETURNING at, key_name, agent_id, total_tokens, cost, calls),
   changed AS (SELECT at, key_name, agent_id, -total_tokens AS tokens, -cost AS cost,
                 -CASE WHEN calls > 0 THEN total_tokens ELSE 0 END AS settled_tokens, -CASE WHEN calls > 0 THEN cost ELSE 0 END AS settled_cost FROM old)
   ${addTotals('changed')}`,
);

/** the entries of one turn in one INSERT: the columns as arrays, unnested into rows, the calls of one moment alike in one row (usage-calls.ts) */
function insertUsage(entries: UsageEntry[]): Statement {
  const rows = usageRows(entries);
  const column = <T>(pick: (e: UsageEntry) => T) => rows.map((row) => pick(row.entry));
  return {
    text: INSERT_USAGE,
    values: [
      column((e) => e.at), column((e) => e.source), column((e) => e.model), column((e) => e.keyName ?? null), column((e) => e.agentId ?? null),
      column((e) => e.mappingId ?? null), column((e) => e.promptTokens), column((e) => e.completionTokens), column((e) => e.totalTokens),
      column((e) => e.estimated), column((e) => e.cost), rows.map((row) => row.calls),
    ],
  };
}

export function postgresUsageRepo(pool: pg.Pool): UsageRepo & { drain(): Promise<void> } {
  // every model call records its entry: the calls asked for while the last statement was on its way share the next, and its commit
  const batch = new PgTurnBatch(pool, insertUsage, undefined, 1);
  const totals = postgresUsageTotals(pool);
  return {
    drain: () => batch.drain(),
    async record(entries) {
      await Promise.all(entries.map((e) => batch.add(e)));
    },
    async reserve(e, limits) {
      for (const limit of limits) await totals.keep(limit.whose, limit.since);
      // one transaction holding an advisory lock per budget holder (in one order: no deadlock), so
      // the replicas' checks and reservations of one key or agent happen one after another
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const holders = [...new Set(limits.map((l) => whomOf(l.whose)))].sort();
        for (const holder of holders) await client.query("SELECT pg_advisory_xact_lock(hashtextextended('herald-budget:' || $1, 0))", [holder]);
        for (const limit of limits) {
          const spent = await totals.spent(client, limit.whose, limit.since);
          if ((limit.tokens !== undefined && spent.tokens >= limit.tokens) || (limit.cost !== undefined && spent.cost >= limit.cost)) {
            await client.query('ROLLBACK');
            return { refused: limit, spent };
          }
        }
        const { rows } = await query<{ id: string }>(client, RESERVE, [
          e.at, e.source, e.model, e.keyName ?? null, e.agentId ?? null, e.mappingId ?? null, e.promptTokens, e.completionTokens, e.totalTokens, e.cost,
        ]);
        await client.query('COMMIT');
        return { id: Number(rows[0]!.id) };
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    async settle(id, e) {
      if (!e) await query(pool, RELEASE, [id]);
      else await query(pool, SETTLE, [e.model, e.promptTokens, e.completionTokens, e.totalTokens, e.estimated, e.cost, id]);
    },
    async spent(whose, since, settled = false) {
      await totals.keep(whose, since);
      return totals.spent(pool, whose, since, settled);
    },
    async report(q) {
      const column = usageGroupColumn[q.by];
      const day = q.perDay ? `to_char(to_timestamp(at / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD')` : undefined;
      const { rows } = await query<UsageReportRow>(
        pool,
        `SELECT ${column} AS grp, ${day ? `${day} AS day,` : ''} SUM(calls)::float8 AS requests, SUM(prompt_tokens)::float8 AS prompt_tokens,
           SUM(completion_tokens)::float8 AS completion_tokens, SUM(total_tokens)::float8 AS total_tokens,
           SUM(CASE WHEN estimated THEN total_tokens ELSE 0 END)::float8 AS estimated_tokens, SUM(cost)::float8 AS cost
         FROM usage WHERE at >= $1 AND at < $2
         GROUP BY grp${day ? ', day' : ''} ORDER BY ${day ? 'day, ' : ''}total_tokens DESC, grp NULLS FIRST`,
        [q.since ?? 0, q.until ?? Number.MAX_SAFE_INTEGER],
      );
      return rows.map(toUsageRow);
    },
  };
}
