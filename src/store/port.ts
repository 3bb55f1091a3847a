import type { RunAction } from './run-action.js';
import type { StoreProbe } from './store-probe.js';

/**
 * The storage port: what the rest of herald asks of a store, and the only door to the database.
 * `openStore` (open-store.ts) picks the adapter: SQLite (`store/sqlite/`, the default) or
 * PostgreSQL (`store/postgres/`). Every method is async so a networked adapter fits behind the
 * same port; every atomicity rule written here holds on every adapter, and the contract suite
 * (test/store/*.case.ts) checks it on each. Times are epoch milliseconds.
 */
import type { BrowseRepo, ReceiptsRepo } from './operator-port.js';
import type { AlertsRepo } from './alerts-port.js';
import type { SchedulesRepo } from './schedules-port.js';
import type { FilesRepo, VectorStoresRepo } from './files-port.js';
import type { UsageRepo } from './usage-port.js';
import type { ToolCallRecord, ToolCallsRepo } from './tool-calls-port.js';

export type * from './operator-port.js';
export type * from './alerts-port.js';
export type * from './schedules-port.js';
export type * from './files-port.js';
export type * from './usage-port.js';
export type * from './tool-calls-port.js';

export type EventStatus = 'pending' | 'processing' | 'done' | 'dropped';

export interface SystemEvent {
  id: number;
  session: string;
  text: string;
  status: EventStatus;
  createdAt: number;
  /** the summary of a run over outside content (its mapping without allowUnsafeExternalContent): the heartbeat reads it as data */
  untrusted: boolean;
}

/**
 * `cancelled`: an operator cancelled it while it was queued; `waiting_approval`: a tool call of
 * its turn waits for a person (not claimable, and its session's later runs wait behind it)
 */
export type RunStatus = 'queued' | 'running' | 'waiting_approval' | 'succeeded' | 'failed' | 'timed_out' | 'cancelled';

/** a run not ended yet: waiting for a claim, claimed, or waiting for a person */
export const isUnfinished = (status: RunStatus): boolean => status === 'queued' || status === 'running' || status === 'waiting_approval';

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
}

export type RunWaitReason = 'concurrency' | 'rate' | 'coalesce';

/** How a governed mapping's run is let in (see config/traffic-schema.ts). */
export interface RunAdmission {
  mappingId: string;
  /** at most this many of the mapping's runs running at once: the claim passes over the rest */
  concurrency?: number;
  /** at most `runs` of the mapping's runs start per `perMs`; beyond: deferred, or refused when `reject` */
  rate?: { runs: number; perMs: number; reject: boolean };
  /** the run joins the mapping's queued run of this key whose window is still open, if any; `message` lists the events' messages */
  /** `maxEvents` and `maxBytes` bound one coalesced run: an event that would pass either starts a new run */
  coalesce?: { key: string; windowMs: number; message: (messages: string[]) => string; maxEvents: number; maxBytes: number };
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
  /** `untrusted`: the run read outside content (stored on the event, SystemEvent.untrusted) */
  summary: { session: string; text: string; maxPending: number; untrusted?: boolean };
}

export interface SessionMessage {
  /** `tool`: a client tool's result (its call id, and the assistant's calls, are in `meta`) */
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  createdAt: number;
  runId?: string | null;
  meta?: Record<string, unknown> | null;
}

/**
 * A claim on work: who holds it and until when. A replica renews the leases of the work it is
 * doing; work whose lease ran out (its replica died or hung) may be claimed by anyone.
 */
export interface Lease {
  owner: string;
  now: number;
  until: number;
}

export interface EventsRepo {
  /**
   * Adds a pending event unless it repeats the session's previous one; keeps at most `maxPending`
   * pending. One enqueue after another (a process's own) applies both rules exactly. Enqueues that
   * race (replicas on one PostgreSQL database) are not held up for each other: each decides
   * against what the others committed, so a repeat, or more than `maxPending` pending, may stay
   * in the queue (the list, the count) until the next enqueue or claim, and the claim applies
   * both rules to what it takes.
   */
  enqueue(session: string, text: string, maxPending: number): Promise<SystemEvent | undefined>;
  /**
   * Claims the session's pending events, and processing ones whose lease ran out (a replica that
   * died mid-heartbeat), for `lease.owner` until `lease.until`; oldest first. Two claimers never
   * get the same event. The queue's rules hold for what it returns, whatever got in past the
   * enqueue: an event repeating the one before it is dropped, and so are the pending ones older
   * than the newest `maxPending`.
   */
  claimPending(session: string, lease: Lease, maxPending: number): Promise<SystemEvent[]>;
  complete(ids: number[]): Promise<void>;
  /** extends the owner's claim on these events */
  renew(ids: number[], owner: string, until: number): Promise<void>;
  /** gives the owner's claimed events back: pending again (a failed heartbeat) */
  release(ids: number[], owner: string): Promise<void>;
  /**
   * Every processing event, whoever claimed it, is pending again: for a process that serves the
   * database alone (see Store.serveAlone), at its start, when whoever held them is gone. Returns how many.
   */
  requeueProcessing(): Promise<number>;
  list(session: string, limit: number): Promise<SystemEvent[]>;
  countPending(session: string): Promise<number>;
}

export interface RunsRepo {
  /**
   * Adds a run. With `claimedBy`, it is stored already running under that lease (the caller
   * executes it at once; only for a run that is alone in its session, such as one with a fresh
   * session key, since the claim's per-session order is not checked then): no second write to claim it.
   */
  insert(run: RunRecord, claimedBy?: Lease): Promise<void>;
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

export interface SessionsRepo {
  append(sessionKey: string, message: SessionMessage): Promise<void>;
  /**
   * Appends messages to a session in one transaction: a turn's question and its answer are
   * stored together or not at all, never a question without its answer. `fresh`: the caller
   * made the session's key just now (a new chat conversation), so nothing of it is stored yet.
   */
  appendMany(sessionKey: string, messages: SessionMessage[], fresh?: boolean): Promise<void>;
  messages(sessionKey: string, limit?: number): Promise<SessionMessage[]>;
  exists(sessionKey: string): Promise<boolean>;
}

/** small durable key/value state (plugin state, the main session's last route, ...) */
export interface StateRepo {
  get<T = unknown>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown): Promise<void>;
  update<T>(key: string, fn: (current: T | undefined) => T): Promise<T>;
  delete(key: string): Promise<void>;
  /** deletes the keys starting with `prefix` last written before `before` (epoch ms); returns how many */
  deleteOlderThan(prefix: string, before: number): Promise<number>;
}

/** `abandoned`: an operator gave up on it (never retried again) */
export type DeliveryStatus = 'pending' | 'sending' | 'delivered' | 'failed' | 'abandoned';

/** One reply on its way to a chat channel: a row of the durable outbox. */
export interface DeliveryRecord {
  id: string;
  /** null for a heartbeat reply */
  runId: string | null;
  /** `alert`: an alert's notice to an alerts target (never itself alerted on when it fails); `tool`: an agent's herald__send_message */
  kind: 'run' | 'heartbeat' | 'alert' | 'tool';
  /** the resolved plugin id; null when no channel could be resolved */
  channel: string | null;
  to: string | null;
  text: string;
  sessionKey: string;
  agentId: string;
  status: DeliveryStatus;
  attempts: number;
  /** parts of a split message the platform already accepted */
  partsSent: number;
  lastError: string | null;
  nextAttemptAt: number;
  leaseOwner: string | null;
  leaseUntil: number | null;
  createdAt: number;
  updatedAt: number;
  deliveredAt: number | null;
  /** the delivery this one replaces: its primary (or previous fallback) failed for good */
  fallbackOf?: string | null;
  /** when an operator last put it back in line (its age for `retry.maxAgeMs` counts from here) */
  retriedAt?: number | null;
}

/** Which failed deliveries an operator's bulk retry or abandon acts on; every given condition must hold. */
export interface FailedDeliveryFilter {
  channel?: string;
  /** replies of runs whose action this mapping resolved */
  mappingId?: string;
  /** created at or after / at or before (epoch ms) */
  since?: number;
  until?: number;
  /** a case-insensitive substring of the delivery's last error */
  error?: string;
}

/** the deliveries a retry can send: on a configured channel, with a recipient where the channel needs one */
export interface RetryableTargets {
  channels: string[];
  /** channels that need no recipient (webhook) */
  recipientOptional: string[];
}

export interface DeliveriesRepo {
  /**
   * Adds a delivery; a run's reply only when that run has none yet (checked in the same
   * statement, so two callers racing on one run insert one row), and only when its id is not stored
   * yet (an alert's notice, whose id is derived from the alert). False when it was not added.
   */
  insert(delivery: DeliveryRecord): Promise<boolean>;
  /**
   * Ids of runs that succeeded at or after `since`, asked for delivery (`deliver` not false) and
   * have no delivery row: a process that stopped between finishing a run and queueing its reply.
   */
  runsAwaitingDelivery(since: number): Promise<string[]>;
  get(id: string): Promise<DeliveryRecord | undefined>;
  /** the deliveries of a run, oldest first */
  forRun(runId: string): Promise<DeliveryRecord[]>;
  list(filter: { status?: DeliveryStatus; limit: number }): Promise<DeliveryRecord[]>;
  /** ids that are due: pending and due, or sending with an expired lease (a crashed worker's) */
  due(now: number, limit: number): Promise<string[]>;
  /** the earliest time something may become due: next attempt of a pending one or lease expiry */
  nextDueAt(): Promise<number | undefined>;
  /**
   * Takes a due delivery for `owner` until `leaseUntil` and counts the attempt, atomically:
   * of two workers claiming one delivery, exactly one gets it (the other gets undefined).
   */
  claim(id: string, owner: string, now: number, leaseUntil: number): Promise<DeliveryRecord | undefined>;
  /** records a part accepted by the platform and extends the claim to `leaseUntil` (never shortens it); false when the lease was lost */
  partSent(id: string, owner: string, partsSent: number, leaseUntil?: number): Promise<boolean>;
  delivered(id: string, owner: string, at: number): Promise<boolean>;
  retryAt(id: string, owner: string, nextAttemptAt: number, error: string): Promise<boolean>;
  /**
   * A pending or sending delivery (under `owner`'s lease, unless null) fails for good; with
   * `fallback`, the delivery replacing it is added in the same write (once per failed delivery).
   */
  failed(id: string, owner: string | null, error: string, at: number, fallback?: DeliveryRecord): Promise<boolean>;
  /**
   * Puts a failed delivery back in line (an operator's retry): pending, due at `at`, attempts
   * counted afresh; parts already accepted stay sent. False when it is not failed.
   */
  requeue(id: string, at: number): Promise<boolean>;
  /** an operator's abandon: a pending or failed delivery becomes abandoned; false otherwise (sending, delivered) */
  abandon(id: string, at: number): Promise<boolean>;
  /** gives a claim back without counting the attempt (shutdown in the middle of a send) */
  release(id: string, owner: string, at: number): Promise<void>;
  /**
   * Every sending delivery, whoever held it, is pending again and due at `at` (its attempt stays
   * counted, its parts sent stay sent): for a process that serves the database alone (see
   * Store.serveAlone), at its start, when whoever held them is gone. Returns how many.
   */
  requeueSending(at: number): Promise<number>;
  /**
   * How many failed deliveries match `filter`; with `retryable`, only those a bulk retry would put
   * back in line (a target it can send to, and no fallback sent in their place).
   */
  countFailed(filter: FailedDeliveryFilter, retryable?: RetryableTargets): Promise<number>;
  /** an operator's bulk retry: each failed delivery `countFailed(filter, retryable)` counts, back in line as `requeue` does; how many */
  requeueFailed(filter: FailedDeliveryFilter, retryable: RetryableTargets, at: number): Promise<number>;
  /** an operator's bulk abandon of the failed deliveries matching `filter`; how many */
  abandonFailed(filter: FailedDeliveryFilter, at: number): Promise<number>;
}

/** One Idempotency-Key of a hook path: in progress, or done with the response to replay. */
export interface IdempotencyRecord {
  /** the hook path the key belongs to: keys are scoped per path */
  scope: string;
  key: string;
  /** sha256 hex of the hook path and the raw body */
  requestHash: string;
  status: 'in_progress' | 'done';
  /** the id the agent run of this request gets, chosen before dispatch (how a crash is recovered) */
  runId: string;
  responseStatus: number | null;
  /** the response body as JSON text; null for 204 */
  responseBody: string | null;
  createdAt: number;
  /** an in-progress record older than this belongs to a process that died */
  lockedUntil: number;
  expiresAt: number;
}

export type IdempotencyClaim =
  /** the caller owns the key now and processes the request */
  | { type: 'claimed'; record: IdempotencyRecord }
  /** someone else's: done (replay or mismatch) or still in progress */
  | { type: 'existing'; record: IdempotencyRecord };

/** what became of a system event: added to the queue, or joined to the identical pending one before it */
export type EventOutcome = 'queued' | 'coalesced';

export interface IdempotencyRepo {
  /**
   * Takes a key or returns what holds it, atomically (of two racing callers one claims it).
   * An expired record is forgotten first. A stale in-progress record (past `lockedUntil`)
   * is recovered: when its run exists (the process died after the run was stored) it becomes
   * done with that run's 202; otherwise nothing of it was stored and it is claimed afresh.
   */
  claim(record: IdempotencyRecord, now: number): Promise<IdempotencyClaim>;
  complete(scope: string, key: string, response: { status: number; body: string | null }): Promise<void>;
  /**
   * Adds a system event (as EventsRepo.enqueue) and completes the key with the response made for
   * its outcome (`coalesced`: it repeated the pending one before it), in one commit: an idempotent
   * wake whose answer was lost to a crash is replayed on retry, never stored twice.
   */
  completeWithEvent(
    scope: string,
    key: string,
    response: (outcome: EventOutcome) => { status: number; body: string | null },
    event: { session: string; text: string; maxPending: number },
  ): Promise<EventOutcome>;
  /** forgets an in-progress key whose request failed, so a retry is processed afresh */
  release(scope: string, key: string): Promise<void>;
  /**
   * Recovers every in-progress key as `claim` recovers a stale one, whatever its `lockedUntil`:
   * done with its run's 202 when the run exists, else forgotten. For a process that serves the
   * database alone (see Store.serveAlone), at its start, when whoever held them is gone. Returns how many.
   */
  recoverInProgress(): Promise<number>;
  /** deletes expired records (never one still locked); returns how many */
  prune(now: number): Promise<number>;
}

/**
 * Wake-ups between the processes sharing a store (a `/hooks/wake` on one replica starts the
 * heartbeat on whichever holds its lease). Best effort and coalesced: a lost signal costs latency,
 * never work, because the work itself is in the store and polled for.
 */
export interface StoreSignals {
  /** tells every process on this store, this one included */
  publish(topic: string): void;
  /** returns the unsubscribe function */
  subscribe(topic: string, listener: () => void): () => void;
}

/** One file of an agent's knowledge base. */
export interface KnowledgeDocument {
  id: string;
  agentId: string;
  filename: string;
  bytes: number;
  mimeType: string;
  sha256: string;
  status: 'ready';
  chunkCount: number;
  metadata: Record<string, unknown> | null;
  createdAt: number;
}

export type NewKnowledgeDocument = Pick<KnowledgeDocument, 'agentId' | 'filename' | 'bytes' | 'mimeType' | 'sha256' | 'metadata'> & {
  /** the embeddings model of its chunks' embeddings, when they have one */
  embeddingModel?: string;
};

/** A chunk to store: its text, and the form knowledge/ indexes (its segmented, stemmed terms joined by spaces). */
export interface NewKnowledgeChunk {
  content: string;
  terms: string;
  /** its embedding, when platform.knowledge.embeddings is configured (all of a document's chunks, or none) */
  embedding?: Float32Array;
}

/** A chunk a search may rank: it holds at least one of the query's terms. */
export interface KnowledgeCandidate {
  documentId: string;
  filename: string;
  chunkId: string;
  content: string;
  /** its index form, as stored: the ranking counts the query's terms in it */
  terms: string;
}

/** What a search found: the chunks to rank, and the statistics to rank them by. */
export interface KnowledgeCandidates {
  /** the agent's chunks */
  total: number;
  /** the agent's chunks holding each query term, in the order of the terms (frequent ones: frequentTermFrequency) */
  frequencies: number[];
  candidates: KnowledgeCandidate[];
}

/**
 * How both adapters pick candidates, so that they rank alike. A term held by more chunks than
 * `termCountLimit(total)` is "frequent": its chunks are not all read (that is what made a search
 * slow on a large base, and a term in most chunks says little), its frequency is reported as
 * `frequentTermFrequency(total)`. Candidates are then:
 * - the `limit` chunks holding the most, IDF-weighted (`termWeight`), of the other terms, newest first among equals;
 * - for the frequent terms, the first and last FREQUENT_TERM_SAMPLE chunks holding one (by position),
 *   and every chunk holding one in the agent's newest SMALL_DOCUMENTS documents of at most
 *   SMALL_DOCUMENT_CHUNKS chunks (so one large document cannot hide a small one about the same thing).
 */
export const FREQUENT_TERM_CHUNKS = 500;
export const FREQUENT_TERM_SAMPLE = 8;
export const SMALL_DOCUMENT_CHUNKS = 8;
export const SMALL_DOCUMENTS = 32;
export const termCountLimit = (total: number) => Math.min(FREQUENT_TERM_CHUNKS, Math.floor(total / 2));
export const frequentTermFrequency = (total: number) => Math.min(total, Math.max(termCountLimit(total) + 1, Math.ceil(total / 2)));
/** BM25's IDF, kept positive: what a term held by `n` of `total` chunks weighs */
export const termWeight = (n: number, total: number) => Math.log(1 + (total - n + 0.5) / (n + 0.5));

/** An older chunk without its index form (stored before an upgrade): knowledge/ indexes it again. */
export interface UnindexedChunk {
  chunkId: string;
  content: string;
}

/** Documents, their chunks and each agent's full-text index of the chunks' index form. */
export interface KnowledgeRepo {
  /**
   * Stores a document and its chunks in one transaction, searchable once it resolves. The same
   * sha256 for the same agent (also two racing uploads) returns the document stored first (`created: false`).
   */
  add(document: NewKnowledgeDocument, chunks: NewKnowledgeChunk[]): Promise<{ document: KnowledgeDocument; created: boolean }>;
  get(id: string): Promise<KnowledgeDocument | undefined>;
  findByHash(agentId: string, sha256: string): Promise<KnowledgeDocument | undefined>;
  /** oldest first; every agent's when `agentId` is undefined */
  list(agentId?: string): Promise<KnowledgeDocument[]>;
  /** documents per agent id (agents without documents are absent) */
  documentCounts(): Promise<Map<string, number>>;
  /** replaces a document's metadata (its chunks stay as they are); undefined when there is no such document */
  setMetadata(id: string, metadata: Record<string, unknown> | null): Promise<KnowledgeDocument | undefined>;
  /** removes the document, its chunks and their index entries at once; false when there was none */
  delete(id: string): Promise<boolean>;
  /**
   * The agent's chunks worth ranking for query terms (index terms, already chosen by knowledge/),
   * with each term's chunk count; knowledge/ ranks them. Only chunks holding a term, never another
   * agent's, as the rule above FREQUENT_TERM_CHUNKS says. Chunk ids are distinct.
   */
  search(agentId: string, terms: string[], limit: number): Promise<KnowledgeCandidates>;
  /**
   * Whether the agent has any chunk, answered from memory where the adapter can (most agents have
   * no documents, and every turn would search): the search is skipped when false. Optional.
   */
  hasChunks?(agentId: string): boolean | Promise<boolean>;
  /** up to `limit` chunks stored before their index form was (by an older version), oldest first */
  unindexed(limit: number): Promise<UnindexedChunk[]>;
  /** stores and indexes the index form of chunks `unindexed` returned */
  reindex(chunks: { chunkId: string; terms: string }[]): Promise<void>;
  /**
   * The agent's `limit` chunks whose embedding (made by `model`) is nearest the vector by cosine
   * similarity, nearest first; chunks embedded by another model are not compared. Brute force.
   */
  nearest(agentId: string, model: string, vector: Float32Array, limit: number): Promise<(KnowledgeCandidate & { similarity: number })[]>;
  /** a document's chunks, in order (a vector store file's parsed content) */
  chunksOf(documentId: string): Promise<string[]>;
}

/** A platform API key made by `herald keys create`: only its sha256 is kept. */
export interface StoredApiKey {
  name: string;
  /** sha256 hex of the key */
  keyHash: string;
  /** undefined: every agent */
  agents?: string[];
  createdAt: number;
}

export interface ApiKeysRepo {
  /** false when the name (or the hash) is taken */
  create(key: StoredApiKey): Promise<boolean>;
  findByHash(keyHash: string): Promise<StoredApiKey | undefined>;
  get(name: string): Promise<StoredApiKey | undefined>;
  /** oldest first */
  list(): Promise<StoredApiKey[]>;
  revoke(name: string): Promise<boolean>;
}

export interface Store {
  events: EventsRepo;
  runs: RunsRepo;
  sessions: SessionsRepo;
  state: StateRepo;
  deliveries: DeliveriesRepo;
  idempotency: IdempotencyRepo;
  signals: StoreSignals;
  knowledge: KnowledgeRepo;
  apiKeys: ApiKeysRepo;
  /** files uploaded through /v1/files, with their bytes */
  files: FilesRepo;
  /** vector stores and their files' processing status (their chunks are in `knowledge`) */
  vectorStores: VectorStoresRepo;
  /** readiness and metrics counts */
  probe: StoreProbe;
  /** a receipt per webhook request, and the payloads retained for replay */
  receipts: ReceiptsRepo;
  /** the operator's filtered, paginated lists over runs, events, sessions and deliveries */
  browse: BrowseRepo;
  /** the incidents alert rules raised (one open per incident key) */
  alerts: AlertsRepo;
  /** the tokens every model call spent, by key, agent, mapping and model (usage reports and budgets) */
  usage: UsageRepo;
  /** every tool call with its run, response or chat turn; the approvals waiting for a person */
  toolCalls: ToolCallsRepo;
  /** scheduled jobs, each with its next due time, and their fires (one per job and due time) */
  schedules: SchedulesRepo;
  /**
   * Takes the database for this process alone, when the adapter can tell: true when no other
   * process serves it, so whatever is in progress in it (running runs, in-progress idempotency
   * keys) was left by one that is gone, and may be taken back at once instead of when its lease
   * runs out. SQLite: an exclusive lock on a file beside the database (`<file>-serving`), held
   * until `close`; the operating system lets go of it when the process dies, kill -9 included.
   * PostgreSQL: false, replicas share the database and leases decide.
   */
  serveAlone(): Promise<boolean>;
  /** commits what is queued, then closes; the store is unusable afterwards */
  close(): Promise<void>;
}

export type { RunAction } from './run-action.js';
export type { StoreCounts, StoreProbe } from './store-probe.js';
