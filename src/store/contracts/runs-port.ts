import type { Lease, SystemEvent } from './events-port.js';
import type { IdempotencyRecord } from './idempotency-port.js';
import type { RunAction } from './run-action.js';
import type { SessionMessage } from './sessions-port.js';
import type { ToolCallRecord } from './tool-calls-port.js';

/**
 * `cancelled`: an operator cancelled it while it was queued; `waiting_approval`: a tool call of
 * its turn waits for a person (not claimable, and its session's later runs wait behind it)
 */
export type RunStatus = 'queued' | 'running' | 'waiting_approval' | 'succeeded' | 'failed' | 'timed_out' | 'cancelled';

/** a run not ended yet: waiting for a claim, claimed, or waiting for a person */
export const isUnfinished = (status: RunStatus): boolean => status === 'queued' || status === 'running' || status === 'waiting_approval';

/** what a made-up session's key starts with: `hook:` and the id of the run that made it up */
export const MADE_UP_SESSION_PREFIX = 'hook:';

/**
 * The key of a session made up for a run given none: its own id after the prefix. A store may find
 * such a session's first run by its id (SQLite's migration 59 keeps it out of the session indexes).
 */
export const madeUpSessionKey = (runId: string): string => MADE_UP_SESSION_PREFIX + runId;

export interface RunRecord {
  id: string;
  status: RunStatus;
  agentId: string;
  name: string;
  sessionKey: string;
  /** the message as received, never the safety-wrapped form */
  message: string;
  /** the whole validated action, so a run can resume after a restart (parsed on read, never cast) */
  action: RunAction;
  reply: string | null;
  error: string | null;
  /** the model that answered (`provider/model`): the primary, or the fallback that took over */
  model?: string | null;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  /** the run this one re-runs (an operator's re-run links the new run to the old one) */
  rerunOf?: string | null;
  /** a governed mapping's run (see RunsRepo.admit): not claimable before this time */
  notBefore?: number;
  /** why admission held it back: its mapping's concurrency or rate, or a coalescing window */
  waitedFor?: RunWaitReason;
  /** the events coalesced into this run, its own included (a coalescing mapping's run) */
  coalescedCount?: number;
  /**
   * where its turn stands once it called tools: the messages of the turn so far (JSON, read by
   * agents/turn-checkpoint.ts), so a run retaken after a crash or resumed after an approval goes
   * on from there instead of asking its model again
   */
  turnState?: Record<string, unknown> | null;
  /**
   * the W3C traceparent of the span that made the run (its request's, when tracing is on), so the
   * run, executed later or by another replica, stays in that trace; absent when none was recorded
   */
  traceContext?: string | null;
}

export type RunWaitReason = 'concurrency' | 'rate' | 'coalesce';

/**
 * How a coalesced run's message lists its events, made to grow by appending: the first event's
 * message alone; when a second joins, `heading` and `marker(1)` go before it, and each event
 * joining appends `marker(n)` and its message.
 */
export interface CoalescedList {
  heading: string;
  marker: (n: number) => string;
}

/** How a governed mapping's run is let in (see config/sections/traffic-schema.ts). */
export interface RunAdmission {
  mappingId: string;
  /** at most this many of the mapping's runs running at once: the claim passes over the rest */
  concurrency?: number;
  /** at most `runs` of the mapping's runs start per `perMs`; beyond: deferred, or refused when `reject` */
  rate?: { runs: number; perMs: number; reject: boolean };
  /**
   * The run joins the mapping's queued run of this key whose window is still open, if any, its
   * message appended to that run's as `list` says; `maxEvents` and `maxBytes` bound one
   * coalesced run: an event that would pass either starts a new run.
   */
  coalesce?: { key: string; windowMs: number; list: CoalescedList; maxEvents: number; maxBytes: number };
}

export type AdmittedRun =
  /** stored, queued; claimable from `notBefore` when it has one */
  | { type: 'queued'; runId: string; notBefore?: number; waitedFor?: RunWaitReason }
  /** merged into `runId`, which now lists `count` events */
  | { type: 'coalesced'; runId: string; count: number }
  /** refused (a rate with overflow reject): nothing stored; the window allows a run again in `retryAfterMs` */
  | { type: 'rate-limited'; retryAfterMs: number };

export interface RunCompletion {
  status: Exclude<RunStatus, 'queued' | 'running' | 'waiting_approval'>;
  reply?: string | null;
  error?: string | null;
  /** the model that answered, when one did */
  model?: string | null;
  at: number;
  /** messages appended to the run's session (empty when the run failed) */
  transcript: SessionMessage[];
  /** the run's session, when the caller has the run at hand: a store need not read it back to append the transcript */
  sessionKey?: string;
  /**
   * the run found its session without messages (its key made for it, or its history read empty):
   * the transcript is the session's first messages, and a store may write them without reading
   * the session first (a hint: another writer may have added some since, and the store copes)
   */
  opensSession?: boolean;
  /** `untrusted`: the run read outside content (stored on the event, SystemEvent.untrusted) */
  summary: { session: string; text: string; maxPending: number; untrusted?: boolean };
}

export interface RunsRepo {
  /**
   * Adds a run. With `claimedBy`, it is stored already running under that lease (the caller
   * executes it at once; only for a run that is alone in its session, such as one with a fresh
   * session key, since the claim's per-session order is not checked then): no second write to claim it.
   */
  insert(run: RunRecord, claimedBy?: Lease): Promise<void>;
  /**
   * Adds a run (as `insert`) together with the idempotency key of the request that asked for it,
   * stored done with its answer (`key.status` 'done', its response set), in ONE commit, only when
   * no record holds the key (not even an expired one): true when both are stored, false when
   * nothing was (the caller then claims the key as usual, which replays, refuses or forgets what
   * holds it). A keyed webhook's claim, run and answer in one commit instead of three.
   */
  insertKeyed(run: RunRecord, key: IdempotencyRecord, claimedBy?: Lease): Promise<boolean>;
  /**
   * Adds a governed mapping's run (queued, never claimed at once) under its admission, atomically
   * with every other admission of its mapping on any replica: it joins an open coalescing run of its
   * key, or is refused by the rate, or is stored with the time it may start (`run.createdAt` is now).
   */
  admit(run: RunRecord, admission: RunAdmission): Promise<AdmittedRun>;
  get(id: string): Promise<RunRecord | undefined>;
  /**
   * Claims up to `limit` runs for `lease.owner`, marking them running until `lease.until`, oldest
   * first: queued runs, and running ones whose lease ran out (their replica died). A governed run
   * (see admit) is passed over before its `notBefore`, and while its mapping has `concurrency` runs
   * running under a live lease, counted across every claimer. Only the oldest
   * unfinished run of a session is ever claimable, so the runs of one session go one at a time, in
   * order, across every replica. Two claimers never get the same run.
   *
   * With `behind`, each claimed run comes with up to `behind` of the runs queued behind it in its
   * session, claimed too and listed right after it, in order (a session's chain, see sessionChains):
   * the claimer executes them one after another, and each completes only once the run ahead
   * completed (`complete` refuses a run with an unfinished one ahead). A store may hand out fewer
   * (none is correct too).
   */
  claim(lease: Lease, limit: number, behind?: number): Promise<RunRecord[]>;
  /** extends the owner's leases on these running runs; returns the ids it still holds */
  renew(ids: string[], owner: string, until: number): Promise<string[]>;
  /** gives the owner's running runs back to the queue (a shutdown cut them short, or they could not complete) */
  release(ids: string[], owner: string): Promise<void>;
  /**
   * The runs' stored actions keep `…` in place of their recipient's one-reply credential (`to`
   * after `#token=`, Discord's interaction token: queries/recipient-scrub.ts) once it has no use
   * left: the runs `ids` (their reply's delivery is final), and every run created in
   * [`created.from`, `created.before`) (the credential's 15 minutes are over). A run whose action
   * carries none, or one scrubbed already, is left as it is. Returns how many were scrubbed.
   */
  scrubCredentials(ids: readonly string[], created?: { from: number; before: number }): Promise<number>;
  /** an operator's cancel: a queued run (or one waiting for approval) becomes cancelled (finishedAt = at) and is never claimed; false otherwise */
  cancel(id: string, at: number): Promise<boolean>;
  /**
   * Stores where the owner's running run's turn stands (RunRecord.turnState) and the tool calls
   * it is about to make, in one transaction, before any of them executes. False when the owner no
   * longer holds the run (its lease was lost): nothing is written, and nothing may be executed.
   */
  checkpoint(id: string, owner: string, turnState: Record<string, unknown>, calls: ToolCallRecord[]): Promise<boolean>;
  /**
   * The owner's running run waits for a person: `waiting_approval`, its lease let go, unless none
   * of its calls waits any longer (each was decided meanwhile): then it stays running with the
   * owner, and the result is false (go on at once).
   */
  pauseForApproval(id: string, owner: string): Promise<boolean>;
  /**
   * Gives every running run back to the queue, whoever held it, in its session's order: for a
   * process that serves the database alone (see Store.serveAlone), at its start, when whoever
   * held them is gone. Returns how many.
   */
  requeueRunning(): Promise<number>;
  /**
   * Finishes a run in one transaction: its transcript, its final status and its summary event
   * on the main session, so a crash can neither lose the summary nor double the transcript.
   * A run that is already finished is left as it is (false): of two replicas finishing one run
   * (the first lost its lease), exactly one completes it. A run with an older unfinished run in
   * its session is not completed either (false): it was claimed behind that run, which was not.
   */
  complete(id: string, completion: RunCompletion): Promise<boolean>;
  /**
   * `complete`, then, in the same transaction, claims for `lease` the next claimable run (as
   * `claim(lease, 1, behind)` would: often the finished run's session's next one, ready now) into
   * the place the finished run leaves: one commit per run instead of two. Nothing is claimed when
   * the run was not completed. Completions asked together may be written together: each then
   * claims its own run, none twice.
   */
  completeAndClaimNext(id: string, completion: RunCompletion, lease: Lease, behind?: number): Promise<RunCompleted>;
  /**
   * The store has one writer: completions commit one after another, in the order asked. The run
   * behind another in its session may then start before the one ahead's completion committed (its
   * own commits after it, often with it). With several writers committing side by side, the run
   * behind could commit first and be refused: it starts only once the one ahead committed.
   */
  readonly singleWriter: boolean;
  /**
   * While turns answer at once, a process holds up to this many times `maxConcurrent` runs
   * claimed (see Slots). How many pays depends on what a claim of its own costs this store against
   * a run stored already claimed (RunQueue.submit, while a slot is free) or claimed in the
   * transaction of the completion that frees its slot.
   */
  readonly claimAhead: number;
}

/** a completion's result: whether this call finished the run, and the runs it claimed into its place */
export interface RunCompleted {
  finished: boolean;
  /** the run claimed, then those of its session claimed behind it (see RunsRepo.claim) */
  claimed?: RunRecord[];
}
