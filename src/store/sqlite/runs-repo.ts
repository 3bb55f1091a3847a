import type { Statement } from 'better-sqlite3';
import { isUnfinished, type IdempotencyRecord, type Lease, type RunCompleted, type RunCompletion, type RunRecord, type RunStatus, type RunsRepo } from '../port.js';
import { sqliteRunAdmission } from './run-admission.js';
import { toRunRecord, type RunRow as SharedRunRow } from '../rows/record-rows.js';
import { sessionChains } from '../rows/session-chains.js';
import type { EventAppender } from './events-repo.js';
import { turnAppender } from './sessions-repo.js';
import type { GroupCommit } from './group-commit.js';
import { limitedStatements } from './limited-statements.js';
import { rawRows } from './raw-rows.js';
import { actionToStore, storedRunAction } from '../rows/stored-action.js';
import type { SqliteDatabase } from './open-database.js';
import { RUN_AWAITS_DECISION, toolCallInserter } from './tool-calls-repo.js';
import { scrubbedSql, unscrubbedSql } from '../queries/recipient-scrub.js';
import { firstIdAt, unkeyedAt } from './time-keyed-rows.js';
import { UnclaimedRuns, type ClaimedRow } from './unclaimed-runs.js';

export type RunRow = SharedRunRow<string>;

export const toRun = (r: RunRow): RunRecord => toRunRecord(r, JSON.parse, storedRunAction(r.id, r.action, { agentId: r.agent_id, message: r.message }));

/** the columns a run record is made of (toRunRecord) */
const RECORD_COLUMNS = [
  'id', 'status', 'agent_id', 'name', 'session_key', 'message', 'action', 'reply', 'error', 'model',
  'created_at', 'started_at', 'finished_at', 'rerun_of', 'not_before', 'waited_for', 'coalesced', 'turn_state', 'trace_context',
] as const satisfies readonly (keyof RunRow)[];
// every column of a run row is read: a column added to RunRow and not here fails to compile
const RECORD_COLUMNS_COMPLETE: [Exclude<keyof RunRow, (typeof RECORD_COLUMNS)[number]>] extends [never] ? true : never = true;
void RECORD_COLUMNS_COMPLETE;

/** what a claim returns of each run: its record's columns, then its rowid as `seq` */
const CLAIMED_COLUMNS = [...RECORD_COLUMNS, 'seq'] as const;

/**
 * The condition of the partial indexes of unfinished runs (runs_ready, runs_session_unfinished),
 * as they spell it: a query names it so SQLite may read them. With the status, as finished_at
 * alone does not say a run is queued or running.
 */
const UNFINISHED = "finished_at IS NULL AND status IN ('queued', 'running')";
/** UNFINISHED, or waiting for a person's approval: unfinished too, holding its session's later runs behind it, but never claimed */
const UNFINISHED_OR_PAUSED = "finished_at IS NULL AND (status IN ('queued', 'running') OR status = 'waiting_approval')";

/**
 * The condition of the session indexes (runs_session, runs_session_unfinished, migration 59), as
 * they spell it: every run but a made-up session's first run (keyed `hook:<its id>`, run-queue.ts)
 * while it waits behind none, which whoever looks for it finds by its id.
 */
export const IN_SESSION_INDEXES = "(session_key <> 'hook:' || id OR waiting = 1)";
/** the runs the session indexes leave out (IN_SESSION_INDEXES' complement): a made-up session's first run, waiting behind none */
export const MADE_UP_HEAD = "session_key = 'hook:' || id AND waiting = 0";

/** the store_counts row of each status a run is counted under (count-deltas.ts), as constants: a name built per write is a new string to flatten and hash */
const RUN_COUNTS: Readonly<Record<string, string>> = { queued: 'runs:queued', running: 'runs:running', waiting_approval: 'runs:waiting_approval' };
const runCount = (status: string): string => RUN_COUNTS[status] ?? `runs:${status}`;

/** the statuses a completion finishes a run from, the likelier first */
const FINISHED_FROM = ['running', 'queued'] as const;

/**
 * A start takes back the runs a crashed predecessor left running: from the unfinished ones, not by
 * scanning every run. A running run waits behind none (runs_ready) but where a trigger found one
 * ahead of it at its insert (runs_session_unfinished holds every waiting run).
 */
export const REQUEUE_RUNNING = `UPDATE runs SET status = 'queued', lease_owner = NULL, lease_until = NULL WHERE rowid IN (
  SELECT rowid FROM runs INDEXED BY runs_ready WHERE waiting = 0 AND finished_at IS NULL AND status = 'running'
  UNION ALL SELECT rowid FROM runs INDEXED BY runs_session_unfinished WHERE finished_at IS NULL AND ${IN_SESSION_INDEXES} AND waiting = 1 AND status = 'running')`;

/** writes go through the group commit: a run's insert, start and completion each share a commit with their neighbours' */
/** `appender`: the database's one (sqlite-store.ts), for the summary event of a run's completion */
export function sqliteRunsRepo(db: SqliteDatabase, commits: GroupCommit, appender: EventAppender): RunsRepo {
  // the writes say OR FAIL: a failed one is undone whole by its group commit, no statement journal needed (group-commit.ts).
  // The insert lists the run's session too (migration 36's trigger)
  const insert = db.prepare(
    `INSERT OR FAIL INTO runs (id, status, agent_id, name, session_key, message, action, mapping_id, deliver, reply, error, created_at, started_at, finished_at, lease_owner, lease_until, rerun_of, trace_context, unkeyed_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const unclaimed = new UnclaimedRuns(commits);
  // `held`: a run inserted queued is held for its claim as its row reads (unclaimed-runs.ts)
  const insertNow = (run: RunRecord, claimedBy: Lease | undefined, held: boolean) => {
    const { action: checked, text: action } = actionToStore(run.action);
    const deliver = run.action.deliver ? 1 : 0;
    const [status, startedAt]: [RunStatus, number | null] = claimedBy ? ['running', claimedBy.now] : [run.status, run.startedAt];
    const rerunOf = run.rerunOf ?? null;
    const traceContext = run.traceContext ?? null;
    const { lastInsertRowid } = insert.run(run.id, status, run.agentId, run.name, run.sessionKey, run.message, action, checked.source.mappingId, deliver, run.reply, run.error, run.createdAt, startedAt, run.finishedAt,
      claimedBy?.owner ?? null, claimedBy?.until ?? null, rerunOf, traceContext, unkeyedAt(run.id, run.createdAt));
    if (isUnfinished(status)) commits.count(runCount(status), 1);
    if (!held || status !== 'queued') return;
    // the row as the INSERT wrote it, its columns in RECORD_COLUMNS' order (the hidden class of the rows read back)
    unclaimed.remember({
      id: run.id, status, agent_id: run.agentId, name: run.name, session_key: run.sessionKey, message: run.message, action, reply: run.reply, error: run.error, model: null,
      created_at: run.createdAt, started_at: startedAt, finished_at: run.finishedAt, rerun_of: rerunOf, not_before: null, waited_for: null, coalesced: null, turn_state: null,
      trace_context: traceContext, seq: Number(lastInsertRowid),
    });
  };
  // an admitted run is not held: its admission writes its row again at once
  const admission = sqliteRunAdmission(db, commits, (run) => insertNow(run, undefined, false));
  // a keyed request's key, stored done with its answer beside its run (insertKeyed); IGNORE: a key
  // held already (even expired) is left to the claim, and nothing of the request is written
  const insertKey = db.prepare<[string, string, string, string, number | null, string | null, number, number, number]>(
    `INSERT OR IGNORE INTO idempotency_keys (scope, key, request_hash, status, run_id, response_status, response_body, created_at, locked_until, expires_at)
     VALUES (?, ?, ?, 'done', ?, ?, ?, ?, ?, ?)`,
  );
  const insertKeyed = (run: RunRecord, key: IdempotencyRecord, claimedBy?: Lease): boolean => {
    if (insertKey.run(key.scope, key.key, key.requestHash, key.runId, key.responseStatus, key.responseBody, key.createdAt, key.lockedUntil, key.expiresAt).changes === 0) return false;
    insertNow(run, claimedBy, true);
    return true;
  };
  const get = db.prepare<[string], RunRow>('SELECT * FROM runs WHERE id = ?');
  // the oldest unfinished run of each session only: a session's runs go one at a time, in order.
  // The others are flagged waiting (the 'scale' migration's triggers), so the ready ones are read from
  // runs_ready in rowid order and the claim stops after `limit`: however many runs wait behind a
  // busy session, a claim never reads them
  // (the limits written into the SQL: a bound LIMIT has SQLite compile the statement again each call)
  // A governed run (RunsRepo.admit) is passed over before its not_before and while its mapping's
  // concurrency is taken by runs under a live lease (busy: counted from runs_governed, for governed runs only)
  // `followed`: whether a run was inserted behind it in its session (migration 39; any unfinished
  // run behind it was), so a claim reads the runs behind only for the heads that may have some
  // (a statement per head otherwise, most finding none)
  const ready = limitedStatements<[{ now: number }], { rowid: number; status: string; session_key: string; mapping_id: string; concurrency: number | null; busy: number | null; followed: number }>(
    db,
    (limit) => `SELECT rowid, status, session_key, mapping_id, concurrency,
       CASE WHEN concurrency IS NULL THEN NULL ELSE (SELECT COUNT(*) FROM runs AS held INDEXED BY runs_governed
         WHERE held.mapping_id = runs.mapping_id AND held.concurrency IS NOT NULL AND held.status IN ('queued', 'running') AND held.status = 'running' AND held.lease_until >= @now) END AS busy,
       followed
     FROM runs INDEXED BY runs_ready
     WHERE waiting = 0 AND ${UNFINISHED} AND (status = 'queued' OR lease_until IS NULL OR lease_until < @now)
       AND (not_before IS NULL OR not_before <= @now) AND (concurrency IS NULL OR busy < concurrency)
     ORDER BY rowid LIMIT ${limit}`,
  );
  // the unfinished runs behind a ready one in its session, in order (a claim's `behind`): read
  // from runs_session_unfinished, so only the session's waiting runs are, and only `limit` of them
  // (each run behind a session's head waits: the index holds it)
  const queuedBehind = limitedStatements<[string, number], { rowid: number; status: string; lease_until: number | null; not_before: number | null; concurrency: number | null }>(
    db,
    (limit) => `SELECT rowid, status, lease_until, not_before, concurrency FROM runs INDEXED BY runs_session_unfinished
     WHERE session_key = ? AND ${UNFINISHED_OR_PAUSED} AND ${IN_SESSION_INDEXES} AND rowid > ? ORDER BY rowid LIMIT ${limit}`,
  );
  // then the rows found, by rowid: one UPDATE, then one SELECT of the same rowids for their
  // records, of those this process does not hold already (unclaimed-runs.ts: the runs it inserted).
  // Apart, the two cost less than one UPDATE with the SELECT as its `rowid IN (...)`, and less than
  // the UPDATE returning the columns itself (RETURNING keeps every row it returns in a table of
  // its own first, docs/performance.md).
  // OR FAIL (group-commit.ts) even as a group's `last` work, whose failure commits the group's
  // writes all the same: it sets constants and bound numbers, no constraint can stop it half-way.
  // Read raw (raw-rows.ts): only the columns a run record is made of, the rowid last
  const updates: Statement<unknown[]>[] = [];
  const reads: ((...rowids: unknown[]) => ClaimedRow[])[] = [];
  // the placeholders made only for a count not prepared yet
  const placeholders = (count: number) => Array(count).fill('?').join(', ');
  const update = (count: number) =>
    (updates[count] ??= db.prepare(`UPDATE OR FAIL runs SET status = 'running', started_at = COALESCE(started_at, ?), lease_owner = ?, lease_until = ? WHERE rowid IN (${placeholders(count)})`));
  const readBack = (count: number) =>
    (reads[count] ??= rawRows<unknown[], ClaimedRow>(db.prepare(`SELECT ${RECORD_COLUMNS.join(', ')}, rowid FROM runs WHERE rowid IN (${placeholders(count)})`), CLAIMED_COLUMNS));
  // synchronous: nothing writes between the read and the update (the group commit is the only writer).
  // Each ready run comes with up to `behind` runs of its session, for the claimer to execute after
  // it, in order: queued ones, or running ones whose lease ran out (a dead claimer's chain), up to
  // the first held by anyone else
  const claimNow = ({ owner, now, until }: Lease, limit: number, behind: number): RunRow[] => {
    const heads = ready(limit).all({ now });
    if (!heads.length) return [];
    const rowids: number[] = [];
    // the queued ones among them (the others are running runs whose lease ran out): counted as they start
    let queued = 0;
    // a governed mapping's runs taken so far: the heads of one claim count against its concurrency too
    let taken: Map<string, number> | undefined;
    for (const head of heads) {
      if (head.concurrency !== null) {
        taken ??= new Map();
        const running = taken.get(head.mapping_id) ?? head.busy!;
        if (running >= head.concurrency) continue;
        taken.set(head.mapping_id, running + 1);
        // none behind it: each would hold a share of the concurrency while it waits its turn
        rowids.push(head.rowid);
        if (head.status === 'queued') queued++;
        continue;
      }
      rowids.push(head.rowid);
      if (head.status === 'queued') queued++;
      if (behind === 0 || !head.followed) continue;
      for (const next of queuedBehind(behind).all(head.session_key, head.rowid)) {
        if (next.status === 'waiting_approval' || (next.status === 'running' && next.lease_until !== null && next.lease_until >= now)) break;
        // a governed run starts by its own claim
        if (next.concurrency !== null || (next.not_before !== null && next.not_before > now)) break;
        rowids.push(next.rowid);
        if (next.status === 'queued') queued++;
      }
    }
    if (!rowids.length) return [];
    update(rowids.length).run(now, owner, until, ...rowids);
    commits.count('runs:queued', -queued);
    commits.count('runs:running', queued);
    unclaimed.dropIfStale();
    let unread: number[] | undefined;
    const held = rowids.map((rowid) => {
      const row = unclaimed.take(rowid);
      // as the UPDATE set it (a held run was inserted queued: it starts now)
      if (row) {
        row.status = 'running';
        row.started_at ??= now;
      } else (unread ??= []).push(rowid);
      return row;
    });
    if (!unread) return held as ClaimedRow[];
    // the SELECT's order is not the claim's: each head, then the runs behind it
    const bySeq = new Map(readBack(unread.length)(...unread).map((row) => [row.seq, row]));
    return rowids.map((rowid, i) => held[i] ?? bySeq.get(rowid)!);
  };
  const renew = db.prepare<[number, string, string], { id: string }>(
    "UPDATE runs SET lease_until = ? WHERE id = ? AND lease_owner = ? AND status = 'running' RETURNING id",
  );
  const release = db.prepare<[string, string]>(
    "UPDATE runs SET status = 'queued', lease_owner = NULL, lease_until = NULL WHERE id = ? AND lease_owner = ? AND status = 'running'",
  );
  const requeueRunning = db.prepare(REQUEUE_RUNNING);
  // from the status it had, read first (nothing writes between: the group commit is the only writer), so it is counted out of that status
  const cancellable = db.prepare<[string], { status: string }>("SELECT status FROM runs WHERE id = ? AND (status = 'queued' OR status = 'waiting_approval')");
  // the action's `to` keeps `…` for its credential (recipient-scrub.ts): by id, or by the time the
  // run was made (the runs keyed by it through the primary key, the others through runs_created_unkeyed)
  const TO = "json_extract(action, '$.to')";
  const setTo = `SET action = json_set(action, '$.to', ${scrubbedSql(TO, 'instr')})`;
  const scrub = `UPDATE runs ${setTo}`;
  const scrubIds = db.prepare<[string]>(`${scrub} WHERE id IN (SELECT value FROM json_each(?)) AND ${unscrubbedSql(TO, 'instr')}`);
  const created = `created_at >= @from AND created_at < @before AND ${unscrubbedSql(TO, 'instr')}`;
  type Created = { from: number; before: number };
  const scrubKeyed = db.prepare<[Created & { fromId: string; beforeId: string }]>(`${scrub} WHERE unkeyed_at IS NULL AND id >= @fromId AND id < @beforeId AND ${created}`);
  const scrubUnkeyed = db.prepare<[Created]>(`UPDATE runs INDEXED BY runs_created_unkeyed ${setTo} WHERE unkeyed_at IS NOT NULL AND unkeyed_at >= @from AND unkeyed_at < @before AND ${created}`);
  const scrubCreated = (range: Created) => scrubKeyed.run({ ...range, fromId: firstIdAt(range.from), beforeId: firstIdAt(range.before) }).changes + scrubUnkeyed.run(range).changes;
  const cancel = db.prepare<[number, string, string]>("UPDATE runs SET status = 'cancelled', finished_at = ?, lease_owner = NULL, lease_until = NULL WHERE id = ? AND status = ?");
  const checkpoint = db.prepare<[string, string, string]>("UPDATE OR FAIL runs SET turn_state = ? WHERE id = ? AND status = 'running' AND lease_owner = ?");
  const insertCalls = toolCallInserter(db);
  const awaitsDecision = db.prepare<[string], { awaits: number }>(RUN_AWAITS_DECISION);
  const pause = db.prepare<[string, string]>(
    "UPDATE OR FAIL runs SET status = 'waiting_approval', lease_owner = NULL, lease_until = NULL WHERE id = ? AND status = 'running' AND lease_owner = ?",
  );
  // from the status it had (a claimed run is running: one statement; a queued one is tried next), so it is counted out of that status.
  // The session the transcript goes to is read back only when the caller did not say it and
  // there is a transcript: RETURNING keeps its rows in a table of its own first, a cost for nothing
  // when the caller has the run at hand
  const finishing = (returning: string) =>
    db.prepare<[string, string | null, string | null, string | null, number, string, string], { session_key: string }>(
      `UPDATE OR FAIL runs SET status = ?, reply = ?, error = ?, model = ?, finished_at = ?, lease_owner = NULL, lease_until = NULL WHERE id = ? AND status = ? AND waiting = 0${returning}`,
    );
  const finishFrom = finishing('');
  const finishFromReturning = finishing(' RETURNING session_key');
  /** the run's session when it finished, else undefined */
  const finish = (id: string, c: RunCompletion): string | undefined => {
    const known = c.sessionKey ?? (c.transcript.length ? undefined : '');
    for (const from of FINISHED_FROM) {
      const params = [c.status, c.reply ?? null, c.error ?? null, c.model ?? null, c.at, id, from] as const;
      const sessionKey = known === undefined ? finishFromReturning.get(...params)?.session_key : finishFrom.run(...params).changes === 1 ? known : undefined;
      if (sessionKey !== undefined) {
        commits.count(runCount(from), -1);
        return sessionKey;
      }
    }
    return undefined;
  };
  // running runs made queued again: counted
  const requeued = (changes: number) => {
    commits.count('runs:running', -changes);
    commits.count('runs:queued', changes);
    return changes;
  };
  const appendTurn = turnAppender(db);
  // a group commit's work (atomic as one, group-commit.ts). Only a session's oldest unfinished run
  // finishes (waiting = 0): a run whose run ahead was not written is not written either
  const complete = (id: string, c: RunCompletion): boolean => {
    const sessionKey = finish(id, c);
    if (sessionKey === undefined) return false;
    appendTurn(sessionKey, c.transcript, false, c.opensSession === true);
    appender.append(c.summary.session, c.summary.text, c.summary.maxPending, c.summary.untrusted);
    return true;
  };
  // The claims of completeAndClaimNext: one per owner for all the runs completed in a group commit,
  // after all of them (so the runs their ends made ready, sessions' next turns, are claimable), in
  // the same transaction: the ready runs are read once per group, not once per completed run
  let claimsWanted = new Map<string, { lease: Lease; behind: number; places: RunCompleted[] }>();
  // the attempt the claims wanted are of: a group whose transaction failed, or an attempt rolled back to run the group again, left its own behind, unclaimed
  let claimsGeneration = 0;
  const wantClaims = () => {
    if (claimsGeneration !== commits.generation) claimsWanted = new Map();
    claimsGeneration = commits.generation;
    return claimsWanted;
  };
  const claimForCompleted = () => {
    const wanted = wantClaims();
    claimsWanted = new Map();
    for (const { lease, behind, places } of wanted.values()) {
      sessionChains(claimNow(lease, places.length, behind).map(toRun)).forEach((chain, i) => (places[i]!.claimed = chain));
    }
  };

  return {
    // one group commit at a time, in the order asked
    singleWriter: true,
    // a claim is one more statement in a group commit: holding more only moves execution into bursts, at the same CPU per run
    claimAhead: 4,
    // the group commit's promise itself, not an async function's around it: one promise fewer per run
    insert: (run, claimedBy) => commits.run(() => insertNow(run, claimedBy, true)),
    // one work of the group commit: the key's insert and the run's are atomic together
    insertKeyed: (run, key, claimedBy) => commits.run(() => insertKeyed(run, key, claimedBy)),
    admit: admission.admit,
    async get(id) {
      const row = get.get(id);
      return row && toRun(row);
    },
    async claim(lease, limit, behind = 0) {
      return (await commits.run(() => claimNow(lease, limit, behind))).map(toRun);
    },
    async renew(ids, owner, until) {
      return commits.run(() => ids.filter((id) => renew.get(until, id, owner) !== undefined));
    },
    async release(ids, owner) {
      await commits.run(() => ids.forEach((id) => requeued(release.run(id, owner).changes)));
    },
    scrubCredentials(ids, created) {
      return commits.run(() => {
        const scrubbed = (ids.length ? scrubIds.run(JSON.stringify(ids)).changes : 0) + (created ? scrubCreated(created) : 0);
        if (scrubbed) unclaimed.forget();
        return scrubbed;
      });
    },
    async cancel(id, at) {
      return commits.run(() => {
        const from = cancellable.get(id)?.status;
        const cancelled = from !== undefined && cancel.run(at, id, from).changes === 1;
        if (cancelled) {
          commits.count(runCount(from), -1);
          // never claimed now: not held for it either
          unclaimed.forget();
        }
        return cancelled;
      });
    },
    // the state and the calls in one work of the group commit: both or neither, and only under the owner's lease
    checkpoint(id, owner, turnState, calls) {
      return commits.run(() => {
        if (checkpoint.run(JSON.stringify(turnState), id, owner).changes !== 1) return false;
        insertCalls(calls);
        return true;
      });
    },
    pauseForApproval(id, owner) {
      return commits.run(() => {
        if (!awaitsDecision.get(id)!.awaits || pause.run(id, owner).changes !== 1) return false;
        commits.count('runs:running', -1);
        commits.count('runs:waiting_approval', 1);
        return true;
      });
    },
    async requeueRunning() {
      return commits.run(() => requeued(requeueRunning.run().changes));
    },
    complete: (id, completion) => commits.run(() => complete(id, completion)),
    completeAndClaimNext(id, completion, lease, behind = 0) {
      // the answer itself, its claimed runs set by the group's claim (claimForCompleted) before the
      // commit resolves it: the group commit's promise is the answer, with no reaction after it
      const place: RunCompleted = { finished: false };
      const finishing = commits.run(() => {
        // as this attempt finds it (a group run again isolated runs its works again)
        if (place.claimed) delete place.claimed;
        place.finished = complete(id, completion);
        if (!place.finished) return place;
        const wanted = wantClaims().get(lease.owner);
        // the latest lease of the group: the same owner's, asked for while one group gathers
        if (wanted) {
          wanted.lease = lease;
          wanted.behind = behind;
          wanted.places.push(place);
        } else wantClaims().set(lease.owner, { lease, behind, places: [place] });
        return place;
      });
      commits.last(claimForCompleted);
      return finishing;
    },
  };
}
