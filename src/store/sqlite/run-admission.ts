import { admissionPlan, coalescedJoin, coalescedSize } from '../queries/admission-plan.js';
import type { AdmittedRun, RunAdmission, RunRecord } from '../port.js';
import type { GroupCommit } from './group-commit.js';
import type { SqliteDatabase } from './open-database.js';

/**
 * RunsRepo.admit on SQLite: synchronous work of a group commit, so no other write (another
 * admission, a claim) comes between its reads and its writes. `insertNow` stores the run queued.
 */
export function sqliteRunAdmission(db: SqliteDatabase, commits: GroupCommit, insertNow: (run: RunRecord) => void) {
  // the newest queued run of the key whose window is still open (a claim passes over it until not_before)
  const openRun = db.prepare<[string, string, number], { id: string; coalesced: string }>(
    `SELECT id, coalesced FROM runs INDEXED BY runs_coalescing
     WHERE mapping_id = ? AND coalesce_key = ? AND coalesce_key IS NOT NULL AND status = 'queued' AND not_before > ? ORDER BY rowid DESC LIMIT 1`,
  );
  // an append: the run's message is extended where it lies, its events never read back; an action
  // stored with its message by an older version loses that copy (the record takes the column's)
  const join = db.prepare<[string, string, string, string]>(
    `UPDATE OR FAIL runs SET message = ? || message || ?, coalesced = ?,
       action = CASE WHEN json_type(action, '$.message') IS NULL THEN action ELSE json_remove(action, '$.message') END
     WHERE id = ? AND status = 'queued'`,
  );
  // the rate's slots are the times its runs count as started: the n-th newest decides when the next may
  const nthSlot = db.prepare<[string, number], { rate_slot: number }>(
    'SELECT rate_slot FROM runs INDEXED BY runs_rate WHERE mapping_id = ? AND rate_slot IS NOT NULL ORDER BY rate_slot DESC LIMIT 1 OFFSET ?',
  );
  const unfinished = db.prepare<[string], { n: number }>(
    "SELECT COUNT(*) AS n FROM runs INDEXED BY runs_governed WHERE mapping_id = ? AND concurrency IS NOT NULL AND status IN ('queued', 'running')",
  );
  const govern = db.prepare<[number | null, number | null, string | null, number | null, string | null, string | null, string]>(
    'UPDATE OR FAIL runs SET not_before = ?, concurrency = ?, waited_for = ?, rate_slot = ?, coalesce_key = ?, coalesced = ? WHERE id = ?',
  );

  const admitNow = (run: RunRecord, a: RunAdmission): AdmittedRun => {
    const now = run.createdAt;
    if (a.coalesce) {
      const open = openRun.get(a.mappingId, a.coalesce.key, now);
      const size = open && coalescedSize(JSON.parse(open.coalesced));
      const joined = size && coalescedJoin(a.coalesce, size, run.message);
      if (open && joined) {
        join.run(joined.before, joined.after, JSON.stringify(joined.size), open.id);
        return { type: 'coalesced', runId: open.id, count: joined.size.events };
      }
    }
    const plan = admissionPlan(now, a, a.rate && nthSlot.get(a.mappingId, a.rate.runs - 1)?.rate_slot, a.concurrency !== undefined && unfinished.get(a.mappingId)!.n >= a.concurrency);
    if (plan.type === 'rate-limited') return plan;
    insertNow(run);
    govern.run(plan.notBefore ?? null, a.concurrency ?? null, plan.waitedFor ?? null, a.rate ? plan.start : null, a.coalesce?.key ?? null, a.coalesce ? JSON.stringify({ events: 1, bytes: Buffer.byteLength(run.message) }) : null, run.id);
    return { type: 'queued', runId: run.id, ...(plan.notBefore !== undefined && { notBefore: plan.notBefore }), ...(plan.waitedFor && { waitedFor: plan.waitedFor }) };
  };

  return {
    async admit(run: RunRecord, admission: RunAdmission) {
      return commits.run(() => admitNow(run, admission));
    },
  };
}
