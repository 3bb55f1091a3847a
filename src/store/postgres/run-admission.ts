import type pg from 'pg';
import { admissionPlan, coalescedJoin, coalescedSize } from '../queries/admission-plan.js';
import type { AdmittedRun, RunAdmission, RunRecord } from '../port.js';
import { query, transaction } from './pg-pool.js';

const MAPPING = "action->'source'->>'mappingId'";

/**
 * RunsRepo.admit on PostgreSQL: one transaction under an advisory lock per mapping (its key holds
 * the schema, so deployments sharing a database never wait on each other), so the admissions of a
 * mapping on every replica happen one at a time: a rate's count and a coalescing run's open window
 * are read and written with nothing in between. `insertIn` stores the run queued.
 */
export function postgresRunAdmission(pool: pg.Pool, insertIn: (client: pg.PoolClient, run: RunRecord) => Promise<void>) {
  const admitIn = async (client: pg.PoolClient, run: RunRecord, a: RunAdmission): Promise<AdmittedRun> => {
    const now = run.createdAt;
    await query(client, "SELECT pg_advisory_xact_lock(hashtext(current_schema() || ':admit:' || $1))", [a.mappingId]);
    if (a.coalesce) {
      // FOR UPDATE: a claim (SKIP LOCKED) passes over the run while it grows; WHERE status: it was not claimed meanwhile
      const open = await query<{ id: string; coalesced: unknown }>(
        client,
        `SELECT id, coalesced FROM runs WHERE ${MAPPING} = $1 AND coalesce_key = $2 AND status = 'queued' AND not_before > $3 ORDER BY seq DESC LIMIT 1 FOR UPDATE`,
        [a.mappingId, a.coalesce.key, now],
      );
      const head = open.rows[0];
      const size = head && coalescedSize(head.coalesced);
      const joined = size && coalescedJoin(a.coalesce, size, run.message);
      // an append: the run's message is extended in the database, its events never read back; the
      // action's copy of the message goes (a run's record takes it from the column then)
      if (head && joined) {
        const { rowCount } = await query(
          client,
          "UPDATE runs SET message = $1 || message || $2, action = action - 'message', coalesced = $3::jsonb WHERE id = $4 AND status = 'queued'",
          [joined.before, joined.after, JSON.stringify(joined.size), head.id],
        );
        if (rowCount === 1) return { type: 'coalesced', runId: head.id, count: joined.size.events };
      }
    }
    const nth = a.rate
      ? (await query<{ rate_slot: number }>(client, `SELECT rate_slot FROM runs WHERE ${MAPPING} = $1 AND rate_slot IS NOT NULL ORDER BY rate_slot DESC LIMIT 1 OFFSET $2`, [a.mappingId, a.rate.runs - 1])).rows[0]
      : undefined;
    const saturated = a.concurrency !== undefined
      && Number((await query<{ n: string }>(client, `SELECT count(*) AS n FROM runs WHERE ${MAPPING} = $1 AND concurrency IS NOT NULL AND status IN ('queued', 'running')`, [a.mappingId])).rows[0]!.n) >= a.concurrency;
    const plan = admissionPlan(now, a, nth && Number(nth.rate_slot), saturated);
    if (plan.type === 'rate-limited') return plan;
    await insertIn(client, run);
    await query(
      client,
      'UPDATE runs SET not_before = $1, concurrency = $2, waited_for = $3, rate_slot = $4, coalesce_key = $5, coalesced = $6::jsonb WHERE id = $7',
      [plan.notBefore ?? null, a.concurrency ?? null, plan.waitedFor ?? null, a.rate ? plan.start : null, a.coalesce?.key ?? null, a.coalesce ? JSON.stringify({ events: 1, bytes: Buffer.byteLength(run.message) }) : null, run.id],
    );
    return { type: 'queued', runId: run.id, ...(plan.notBefore !== undefined && { notBefore: plan.notBefore }), ...(plan.waitedFor && { waitedFor: plan.waitedFor }) };
  };
  return {
    async admit(run: RunRecord, admission: RunAdmission) {
      return transaction(pool, (client) => admitIn(client, run, admission));
    },
  };
}
