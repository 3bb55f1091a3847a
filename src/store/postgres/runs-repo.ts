import type pg from 'pg';
import type { IdempotencyRecord, Lease, RunCompleted, RunCompletion, RunRecord, RunsRepo, SessionMessage } from '../port.js';
import { postgresRunAdmission } from './run-admission.js';
import { toRunRecord, type RunRow as SharedRunRow } from '../rows/record-rows.js';
import { actionToStoreWhole, wholeRunAction } from '../rows/stored-action.js';
import type { PgGroupCommit } from './group-commit.js';
import { prepared, query, transaction, type Queryable } from './pg-pool.js';
import { PgTurnBatch, type Statement } from './turn-batch.js';
import { CompletionBatch } from './completion-batch.js';
import { RUN_AWAITS_DECISION, toolCallRows, toolCallArrays } from './tool-calls-repo.js';
import { TOOL_CALL_COLUMNS } from '../rows/tool-call-rows.js';
import { scrubbedSql, unscrubbedSql } from '../queries/recipient-scrub.js';

/**
 * The turn's state and its calls in one statement, only while `$2` holds the running run `$1`:
 * both written, or neither. $3 the state, from $4 the calls' columns (toolCallRows).
 */
const CHECKPOINT = prepared('checkpoint', `WITH run AS (
    UPDATE runs SET turn_state = $3::jsonb WHERE id = $1 AND status = 'running' AND lease_owner = $2 RETURNING id),
  calls AS (INSERT INTO tool_calls (${TOOL_CALL_COLUMNS.join(', ')}) SELECT * FROM (${toolCallRows(4)}) c WHERE EXISTS (SELECT 1 FROM run))
  SELECT count(*)::int AS n FROM run`);

/** the action's `to` keeps `…` for its credential (recipient-scrub.ts), by id or by the time the run was made */
const TO = "(action->>'to')";
const SCRUB = `UPDATE runs SET action = jsonb_set(action, '{to}', to_jsonb(${scrubbedSql(TO, 'strpos')}))`;

/**
 * The sweep of the runs made in [$1, $2) (every minute, on every replica): the finished ones read
 * from runs_created, the unfinished from runs_unfinished, each range stating its index's condition
 * (migration 31). `created_at` alone implies neither condition, and each sweep read the whole runs table.
 */
export const SCRUB_MADE_BETWEEN = `${SCRUB}
  WHERE ((status IN ('queued', 'running') AND created_at >= $1 AND created_at < $2) OR (status NOT IN ('queued', 'running') AND created_at >= $1 AND created_at < $2))
    AND ${unscrubbedSql(TO, 'strpos')}`;

export type RunRow = SharedRunRow<unknown>;

export const RUN_COLUMNS = 'id, status, agent_id, name, session_key, message, action, reply, error, created_at, started_at, finished_at, rerun_of, model, not_before, waited_for, coalesced, turn_state, trace_context';
const COLUMNS = RUN_COLUMNS;

export const toRun = (r: RunRow): RunRecord => toRunRecord(r, (value) => value, wholeRunAction(r.id, r.action, { agentId: r.agent_id, message: r.message }));

/**
 * FOR UPDATE SKIP LOCKED: replicas claiming at once take different runs and never wait on
 * each other. Only a session's oldest unfinished run is ready (the others are flagged
 * waiting by the triggers of the 'scale' migration, released one by one as the run ahead ends), so the
 * claim reads ready runs from runs_ready in seq order and stops at `limit`: the runs waiting
 * behind a busy session are never read. herald_claim_runs (migration 21) holds the statement, so
 * its plan is that walk whatever the table's statistics say, and the completion's claim is the
 * same one. $1 owner, $2 now, $3 until, $4 limit.
 */
const CLAIM = prepared('claim', 'SELECT * FROM herald_claim_runs($1, $2, $3, $4)');

/**
 * The runs behind a claimed one in its session, claimed with it (RunsRepo.claim's `behind`):
 * queued ones, or running ones whose lease ran out (a dead claimer's chain), up to the first
 * held by anyone else or waiting for a person's approval. $1 owner, $2 now, $3 until, $4 session,
 * $5 the claimed run's seq, $6 behind.
 */
export const CLAIM_BEHIND = prepared('claim_behind', `WITH behind AS (
    SELECT id, seq, (status = 'waiting_approval' OR (status = 'running' AND lease_until >= $2) OR concurrency IS NOT NULL OR COALESCE(not_before, 0) > $2) AS held FROM runs
    WHERE session_key = $4 AND status IN ('queued', 'running', 'waiting_approval') AND seq > $5
    ORDER BY seq LIMIT $6
    FOR UPDATE SKIP LOCKED),
  claimable AS (SELECT id FROM behind WHERE seq < COALESCE((SELECT min(seq) FROM behind WHERE held), seq + 1))
  UPDATE runs SET status = 'running', started_at = COALESCE(started_at, $2), lease_owner = $1, lease_until = $3
  FROM claimable WHERE runs.id = claimable.id
  RETURNING ${COLUMNS.split(', ').map((c) => `runs.${c}`).join(', ')}, runs.seq`);

/**
 * The claim of the runs CLAIM leaves out: those of a mapping with a concurrency limit. Its count of
 * the mapping's runs under a live lease must see every other claimer's, so governed claims go one at
 * a time across replicas (the advisory lock, taken by the caller, before this statement's snapshot).
 * A mapping whose limit is taken is passed over whole (no backlog of one mapping hides another's
 * runs); among a mapping's claimable runs, the oldest fill its free places. $1 owner, $2 now, $3 until, $4 limit.
 */
const GOVERNED_CLAIM = `WITH candidates AS (
    SELECT r.id, r.seq, r.concurrency, r.action->'source'->>'mappingId' AS mapping,
      (SELECT count(*) FROM runs held WHERE held.action->'source'->>'mappingId' = r.action->'source'->>'mappingId'
         AND held.concurrency IS NOT NULL AND held.status IN ('queued', 'running') AND held.status = 'running' AND held.lease_until >= $2) AS busy
    FROM runs r
    WHERE r.concurrency IS NOT NULL AND NOT r.waiting AND r.status IN ('queued', 'running') AND (r.status = 'queued' OR r.lease_until IS NULL OR r.lease_until < $2)
      AND (r.not_before IS NULL OR r.not_before <= $2)
    ORDER BY r.seq
    FOR UPDATE SKIP LOCKED),
  chosen AS (
    SELECT id FROM (SELECT id, seq, concurrency, busy, row_number() OVER (PARTITION BY mapping ORDER BY seq) AS place FROM candidates WHERE busy < concurrency) ranked
    WHERE busy + place <= concurrency ORDER BY seq LIMIT $4)
  UPDATE runs SET status = 'running', started_at = COALESCE(started_at, $2), lease_owner = $1, lease_until = $3
  FROM chosen WHERE runs.id = chosen.id
  RETURNING ${COLUMNS.split(', ').map((c) => `runs.${c}`).join(', ')}, runs.seq`;

/** herald_governed_waiting (migration 34) holds the statement, so its plan reads runs_governed whatever the table's size when it was made */
const GOVERNED_WAITING = prepared('governed_waiting', 'SELECT herald_governed_waiting() AS any');

/** whether any governed run is unfinished (runs_governed): without one, a governed claim would only take its lock and plan its statement for nothing */
async function anyGovernedWaiting(db: Queryable): Promise<boolean> {
  return (await query<{ any: boolean }>(db, GOVERNED_WAITING)).rows[0]!.any;
}

const CONCURRENCY_LOCK = "hashtext(current_schema() || ':run-concurrency')";

/**
 * The governed runs' claim, when places are left: in a transaction of its own (`claim`), or in the
 * caller's (a completion's group, which may not wait on the lock: it leaves them to the next claim).
 */
async function claimGoverned(client: pg.PoolClient, lease: Lease, limit: number, wait: boolean): Promise<RunRecord[]> {
  if (wait) await client.query(`SELECT pg_advisory_xact_lock(${CONCURRENCY_LOCK})`);
  else if (!(await client.query<{ locked: boolean }>(`SELECT pg_try_advisory_xact_lock(${CONCURRENCY_LOCK}) AS locked`)).rows[0]!.locked) return [];
  const { rows } = await query<RunRow & { seq: string }>(client, GOVERNED_CLAIM, [lease.owner, lease.now, lease.until, limit]);
  return rows.sort((a, b) => Number(a.seq) - Number(b.seq)).map(toRun);
}

type ClaimedRow = RunRow & { seq: string; behind: boolean };

/** CLAIM, then the runs behind each claimed run right after it */
async function claimIn(client: Queryable, lease: Lease, limit: number, behind: number): Promise<RunRecord[]> {
  const { rows } = await query<ClaimedRow>(client, CLAIM, [lease.owner, lease.now, lease.until, limit]);
  return withRunsBehind(client, lease, rows, behind);
}

/** the runs CLAIM took, each followed by the runs behind it in its session (up to `behind`), claimed too */
async function withRunsBehind(client: Queryable, { owner, now, until }: Lease, rows: ClaimedRow[], behind: number): Promise<RunRecord[]> {
  const bySeq = (a: { seq: string }, b: { seq: string }) => Number(a.seq) - Number(b.seq);
  const claimed: RunRecord[] = [];
  for (const head of rows.sort(bySeq)) {
    claimed.push(toRun(head));
    // CLAIM says whether anything waits behind it: most runs have a session of their own, and the
    // look behind would be a second round trip per claimed run for nothing
    if (behind === 0 || !head.behind) continue;
    const chain = await query<RunRow & { seq: string }>(client, CLAIM_BEHIND, [owner, now, until, head.session_key, head.seq, behind]);
    claimed.push(...chain.rows.sort(bySeq).map(toRun));
  }
  return claimed;
}

/** a run's row as inserted: claimed by `claimedBy` at once, or as it is */
const insertValues = (run: RunRecord, claimedBy?: Lease) => [run.id, claimedBy ? 'running' : run.status, run.agentId, run.name, run.sessionKey, run.message,
  actionToStoreWhole(run.action), run.action.deliver, run.reply, run.error, run.createdAt, claimedBy ? claimedBy.now : run.startedAt,
  run.finishedAt, claimedBy?.owner ?? null, claimedBy?.until ?? null, run.rerunOf ?? null, run.traceContext ?? null];

/** the column types, in insertValues' order */
const INSERT_TYPES = ['text', 'text', 'text', 'text', 'text', 'text', 'jsonb', 'boolean', 'text', 'text', 'bigint', 'bigint', 'bigint', 'text', 'bigint', 'text', 'text'];

/**
 * Runs inserted in the order given (their seq follows it), each session listed from its first
 * run on, before the run has written a message (queued, running, failed early). The columns come
 * as arrays, unnested into rows: one statement for any number of runs.
 */
function insertRuns(runs: { run: RunRecord; claimedBy?: Lease }[]): Statement {
  const rows = runs.map(({ run, claimedBy }) => insertValues(run, claimedBy));
  return {
    text: INSERT_RUNS,
    values: INSERT_TYPES.map((_, i) => rows.map((row) => row[i])),
  };
}

const INSERT_RUNS = prepared('insert_runs', `WITH run AS (
       INSERT INTO runs (id, status, agent_id, name, session_key, message, action, deliver, reply, error, created_at, started_at, finished_at, lease_owner, lease_until, rerun_of, trace_context)
       SELECT id, status, agent_id, name, session_key, message, action, deliver, reply, error, created_at, started_at, finished_at, lease_owner, lease_until, rerun_of, trace_context
       FROM unnest(${INSERT_TYPES.map((t, i) => `$${i + 1}::${t}[]`).join(', ')}) WITH ORDINALITY
         AS r(id, status, agent_id, name, session_key, message, action, deliver, reply, error, created_at, started_at, finished_at, lease_owner, lease_until, rerun_of, trace_context, n)
       ORDER BY n
       RETURNING session_key, agent_id, created_at)
     INSERT INTO session_summaries (key, agent_id, messages, first_at, last_at)
     SELECT session_key, CASE WHEN session_key = 'main' THEN NULL ELSE agent_id END, 0, created_at, created_at FROM run
     ON CONFLICT (key) DO NOTHING`);

/**
 * A keyed request's run and its key, stored done with its answer, in one statement (one commit):
 * the run only when the key was free (ON CONFLICT: whoever holds it, even expired, is the claim's
 * to judge). `n`: 1 when both were stored.
 */
const INSERT_KEYED = prepared('insert_keyed_run', `WITH key AS (
       INSERT INTO idempotency_keys (scope, key, request_hash, status, run_id, response_status, response_body, created_at, locked_until, expires_at)
       VALUES ($18, $19, $20, 'done', $21, $22::integer, $23::text, $24::bigint, $25::bigint, $26::bigint)
       ON CONFLICT (scope, key) DO NOTHING
       RETURNING 1),
     run AS (
       INSERT INTO runs (id, status, agent_id, name, session_key, message, action, deliver, reply, error, created_at, started_at, finished_at, lease_owner, lease_until, rerun_of, trace_context)
       SELECT ${INSERT_TYPES.map((t, i) => `$${i + 1}::${t}`).join(', ')} WHERE EXISTS (SELECT 1 FROM key)
       RETURNING session_key, agent_id, created_at),
     listed AS (
       INSERT INTO session_summaries (key, agent_id, messages, first_at, last_at)
       SELECT session_key, CASE WHEN session_key = 'main' THEN NULL ELSE agent_id END, 0, created_at, created_at FROM run
       ON CONFLICT (key) DO NOTHING)
     SELECT count(*)::int AS n FROM key`);

async function insertKeyed(db: Queryable, run: RunRecord, key: IdempotencyRecord, claimedBy?: Lease): Promise<boolean> {
  const { rows } = await query<{ n: number }>(db, INSERT_KEYED, [
    ...insertValues(run, claimedBy),
    key.scope, key.key, key.requestHash, key.runId, key.responseStatus, key.responseBody, key.createdAt, key.lockedUntil, key.expiresAt,
  ]);
  return rows[0]!.n === 1;
}

async function insertIn(db: Queryable, run: RunRecord, claimedBy?: Lease): Promise<void> {
  const { text, values } = insertRuns([{ run, claimedBy }]);
  await query(db, text, values);
}

export function postgresRunsRepo(pool: pg.Pool, commits: PgGroupCommit): RunsRepo & { drain(): Promise<void> } {
  // the runs accepted in one turn share one statement and one commit
  const inserts = new PgTurnBatch(pool, insertRuns);
  // the completions asked for while a completions transaction is on its way: one call for all of them
  const completions = new CompletionBatch<Completing, RunCompleted>(commits, async (client, items) => {
    const heads = await completeAndClaimAllIn(client, items);
    // asked once per batch, and only when a completion claimed nothing: most stores hold no governed run
    let governed: Promise<boolean> | undefined;
    const governedWaiting = () => (governed ??= anyGovernedWaiting(client));
    const done: RunCompleted[] = [];
    for (const [i, item] of items.entries()) done.push(await claimedAfter(client, item, heads[i], governedWaiting));
    return done;
  });
  return {
    drain: () => {
      completions.flush();
      return inserts.drain();
    },
    // groups commit side by side, each on its own connection
    singleWriter: false,
    // a claim of its own is a round trip and a transaction, and a new row version with an entry
    // in each list index (not HOT: the status changes); a run inserted claimed writes none of
    // that, one claimed by a completion shares its transaction: holding more, more runs go so
    claimAhead: 8,
    insert(run, claimedBy) {
      return inserts.add({ run, claimedBy });
    },
    insertKeyed: (run, key, claimedBy) => insertKeyed(pool, run, key, claimedBy),
    admit: postgresRunAdmission(pool, insertIn).admit,
    async get(id) {
      const { rows } = await query<RunRow>(pool, `SELECT ${COLUMNS} FROM runs WHERE id = $1`, [id]);
      return rows[0] && toRun(rows[0]);
    },
    /** see CLAIM */
    async claim(lease, limit, behind = 0) {
      const claimed = await claimIn(pool, lease, limit, behind);
      // one round trip (runs_governed) before the governed claim's transaction: most stores hold no governed run
      if (claimed.length >= limit || !(await anyGovernedWaiting(pool))) return claimed;
      return claimed.concat(await transaction(pool, (client) => claimGoverned(client, lease, limit - claimed.length, true)));
    },
    async renew(ids, owner, until) {
      if (!ids.length) return [];
      const { rows } = await query<{ id: string }>(
        pool,
        // SKIP LOCKED: a renewal never waits on a row another transaction holds (a completion
        // grouped with others would wait on this one in turn: a deadlock); such a run is not renewed
        `UPDATE runs SET lease_until = $3 WHERE id IN
           (SELECT id FROM runs WHERE id = ANY($1::text[]) AND lease_owner = $2 AND status = 'running' ORDER BY id FOR UPDATE SKIP LOCKED)
         RETURNING id`,
        [ids, owner, until],
      );
      return rows.map((r) => r.id);
    },
    async release(ids, owner) {
      if (!ids.length) return;
      await query(
        pool,
        "UPDATE runs SET status = 'queued', lease_owner = NULL, lease_until = NULL WHERE id = ANY($1::text[]) AND lease_owner = $2 AND status = 'running'",
        [ids, owner],
      );
    },
    async scrubCredentials(ids, created) {
      let scrubbed = 0;
      if (ids.length) scrubbed += (await query(pool, `${SCRUB} WHERE id = ANY($1::text[]) AND ${unscrubbedSql(TO, 'strpos')}`, [ids])).rowCount ?? 0;
      if (created) scrubbed += (await query(pool, SCRUB_MADE_BETWEEN, [created.from, created.before])).rowCount ?? 0;
      return scrubbed;
    },
    async cancel(id, at) {
      const { rowCount } = await query(
        pool,
        "UPDATE runs SET status = 'cancelled', finished_at = $2, lease_owner = NULL, lease_until = NULL WHERE id = $1 AND status IN ('queued', 'waiting_approval')",
        [id, at],
      );
      return rowCount === 1;
    },
    async checkpoint(id, owner, turnState, calls) {
      const { rows } = await query<{ n: number }>(pool, CHECKPOINT, [id, owner, JSON.stringify(turnState), ...toolCallArrays(calls)]);
      return rows[0]!.n === 1;
    },
    /** the run's row locked first, then its calls read in a statement of their own: see postgresToolCallsRepo's decide */
    pauseForApproval(id, owner) {
      return transaction(pool, async (client) => {
        await query(client, 'SELECT 1 FROM runs WHERE id = $1 FOR UPDATE', [id]);
        const { rowCount } = await query(
          client,
          `UPDATE runs SET status = 'waiting_approval', lease_owner = NULL, lease_until = NULL
           WHERE id = $1 AND status = 'running' AND lease_owner = $2 AND ${RUN_AWAITS_DECISION}`,
          [id, owner],
        );
        return rowCount === 1;
      });
    },
    async requeueRunning() {
      const { rowCount } = await query(pool, "UPDATE runs SET status = 'queued', lease_owner = NULL, lease_until = NULL WHERE status = 'running'");
      return rowCount ?? 0;
    },
    /** status, transcript and summary event commit together, or not at all (grouped with the completions beside it) */
    async complete(id, c) {
      return commits.run((client) => completeIn(client, id, c));
    },
    /** the claim after the completion, in the same transaction: it sees the run the completion made ready */
    async completeAndClaimNext(id, completion, lease, behind = 0) {
      return completions.add({ id, completion, lease, behind });
    },
  };
}

/** a run's completion and the claim after it, as RunsRepo.completeAndClaimNext is asked for it */
interface Completing {
  id: string;
  completion: RunCompletion;
  lease: Lease;
  behind: number;
}

/** the runs behind the claimed ones, or a governed run when none was claimed: the rest of a completion's claim */
async function claimedAfter(client: pg.PoolClient, { lease, behind }: Completing, heads: ClaimedRow[] | undefined, governedWaiting: () => Promise<boolean>): Promise<RunCompleted> {
  if (!heads) return { finished: false };
  let claimed = await withRunsBehind(client, lease, heads, behind);
  if (!claimed.length && (await governedWaiting())) claimed = await claimGoverned(client, lease, 1, false);
  return claimed.length ? { finished: true, claimed } : { finished: true };
}

const COMPLETE_RUN = prepared(
  'complete_run',
  'SELECT herald_complete_run($1, $2, $3, $4, $5, $6, $7::text[], $8::text[], $9::text[], $10::jsonb[], $11::bigint[], $12, $13, $14, $15, $16) AS finished',
);

/**
 * One round trip: herald_complete_run (migration 15) updates the run, appends its transcript to
 * the run's session and enqueues the summary, or writes nothing when the run is refused.
 */
async function completeIn(client: pg.PoolClient, id: string, c: RunCompletion): Promise<boolean> {
  const { rows } = await query<{ finished: boolean }>(
    client,
    COMPLETE_RUN,
    [id, c.status, c.reply ?? null, c.error ?? null, c.at, c.model ?? null, ...transcriptColumns(c.transcript),
      c.summary.session, c.summary.text, c.summary.maxPending, Date.now(), c.summary.untrusted ?? false],
  );
  return rows[0]!.finished;
}

const COMPLETE_RUNS_AND_CLAIM = prepared('complete_runs_and_claim', 'SELECT * FROM herald_complete_runs_and_claim($1::jsonb)');

/**
 * One round trip for any number of completions: herald_complete_runs_and_claim (migrations 25,
 * 27) completes each run in order from their arguments as JSON, as completeIn does (the
 * transcripts appended in one statement, the summaries enqueued in order, each queue's overflow
 * dropped once), then claims as many ready runs as it completed, as CLAIM does, one for each
 * completed run. For each: undefined when the run was refused, else the runs claimed.
 */
async function completeAndClaimAllIn(client: pg.PoolClient, items: Completing[]): Promise<(ClaimedRow[] | undefined)[]> {
  const batch = items.map(({ id, completion: c, lease }) => ({
    id, status: c.status, reply: c.reply ?? null, error: c.error ?? null, at: c.at, model: c.model ?? null,
    messages: c.transcript.map((m) => ({ role: m.role, content: m.content, runId: m.runId ?? null, meta: m.meta ?? null, createdAt: m.createdAt })),
    summarySession: c.summary.session, summaryText: c.summary.text, maxPending: c.summary.maxPending, now: Date.now(), untrusted: c.summary.untrusted ?? false,
    owner: lease.owner, claimNow: lease.now, until: lease.until,
  }));
  const { rows } = await query<ClaimedRow & { n: number; finished: boolean }>(client, COMPLETE_RUNS_AND_CLAIM, [JSON.stringify(batch)]);
  const heads: (ClaimedRow[] | undefined)[] = items.map(() => []);
  for (const row of rows) {
    if (!row.finished) heads[row.n - 1] = undefined;
    else if (row.id !== null) heads[row.n - 1]!.push(row);
  }
  return heads;
}

/** the transcript as the function's parallel arrays, each value as appendMessages binds it */
function transcriptColumns(messages: SessionMessage[]): unknown[][] {
  return [
    messages.map((m) => m.role),
    messages.map((m) => m.content),
    messages.map((m) => m.runId ?? null),
    messages.map((m) => (m.meta ? JSON.stringify(m.meta) : null)),
    messages.map((m) => m.createdAt),
  ];
}
