import type pg from 'pg';
import type { UsageRepo } from '../port.js';
import type { UsageEntry, UsageLimit, UsageSpent } from '../contracts/usage-port.js';
import { toUsageRow, usageGroupColumn, type UsageReportRow } from '../rows/usage-columns.js';
import { usageRows } from '../rows/usage-calls.js';
import { prepared, query } from './pg-pool.js';
import { PgTurnBatch, type Statement } from './turn-batch.js';

const INSERT_USAGE = prepared(
  'insert_usage',
  `INSERT INTO usage (at, source, model, key_name, agent_id, mapping_id, prompt_tokens, completion_tokens, total_tokens, estimated, cost, calls)
     SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[], $9::bigint[], $10::boolean[], $11::float8[], $12::int[])`,
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
  return {
    drain: () => batch.drain(),
    async record(entries) {
      await Promise.all(entries.map((e) => batch.add(e)));
    },
    async reserve(e, limits) {
      // one transaction holding an advisory lock per budget holder (in one order: no deadlock), so
      // the replicas' checks and reservations of one key or agent happen one after another
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const holders = [...new Set(limits.map((l) => ('keyName' in l.whose ? `key:${l.whose.keyName}` : `agent:${l.whose.agentId}`)))].sort();
        for (const holder of holders) await client.query("SELECT pg_advisory_xact_lock(hashtextextended('herald-budget:' || $1, 0))", [holder]);
        for (const limit of limits) {
          const spent = await spentOf(client, limit.whose, limit.since);
          if ((limit.tokens !== undefined && spent.tokens >= limit.tokens) || (limit.cost !== undefined && spent.cost >= limit.cost)) {
            await client.query('ROLLBACK');
            return { refused: limit, spent };
          }
        }
        const { rows } = await client.query<{ id: string }>(
          `INSERT INTO usage (at, source, model, key_name, agent_id, mapping_id, prompt_tokens, completion_tokens, total_tokens, estimated, cost, calls)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, true, $10, 0) RETURNING id`,
          [e.at, e.source, e.model, e.keyName ?? null, e.agentId ?? null, e.mappingId ?? null, e.promptTokens, e.completionTokens, e.totalTokens, e.cost],
        );
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
      if (!e) {
        await query(pool, 'DELETE FROM usage WHERE id = $1', [id]);
        return;
      }
      await query(pool, 'UPDATE usage SET model = $1, prompt_tokens = $2, completion_tokens = $3, total_tokens = $4, estimated = $5, cost = $6, calls = 1 WHERE id = $7', [
        e.model, e.promptTokens, e.completionTokens, e.totalTokens, e.estimated, e.cost, id,
      ]);
    },
    async spent(whose, since, settled = false) {
      const [column, name] = 'keyName' in whose ? ['key_name', whose.keyName] : ['agent_id', whose.agentId];
      const { rows } = await query<{ tokens: number; cost: number }>(
        pool,
        `SELECT COALESCE(SUM(total_tokens), 0)::float8 AS tokens, COALESCE(SUM(cost), 0)::float8 AS cost FROM usage WHERE ${column} = $1 AND at >= $2${settled ? ' AND calls > 0' : ''}`,
        [name, since],
      );
      return { tokens: rows[0]?.tokens ?? 0, cost: rows[0]?.cost ?? 0 };
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

async function spentOf(db: pg.PoolClient, whose: UsageLimit['whose'], since: number): Promise<UsageSpent> {
  const [column, name] = 'keyName' in whose ? ['key_name', whose.keyName] : ['agent_id', whose.agentId];
  const { rows } = await db.query<{ tokens: number; cost: number }>(
    `SELECT COALESCE(SUM(total_tokens), 0)::float8 AS tokens, COALESCE(SUM(cost), 0)::float8 AS cost FROM usage WHERE ${column} = $1 AND at >= $2`,
    [name, since],
  );
  return { tokens: rows[0]?.tokens ?? 0, cost: rows[0]?.cost ?? 0 };
}
