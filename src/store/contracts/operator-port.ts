/**
 * The operator's part of the storage port: receipts of webhook requests (with the payloads a
 * mapping chose to retain) and the filtered, cursor-paginated lists the admin API and the console
 * read. Every list is newest first, keyset-paginated on (time, id): a page never skips or repeats
 * a row while new ones arrive. Times are epoch milliseconds.
 */
import type { DeliveryRecord, DeliveryStatus } from './deliveries-port.js';
import type { EventStatus, SystemEvent } from './events-port.js';
import type { RunRecord, RunStatus } from './runs-port.js';

/** How a webhook request proved itself; `operator`: a replay asked for through the admin API. */
export type ReceiptAuth = 'bearer' | 'header' | 'query' | 'signature' | 'none' | 'operator' | 'verify-token';

/** What became of a request: the action kind it dispatched, a skip, an error, or a stored response replayed. */
export type ReceiptOutcome = 'wake' | 'agent' | 'tool' | 'skip' | 'error' | 'idempotent_replay' | 'respond';

/** One webhook request as the operator sees it: never the body (see RetainedPayload). */
export interface ReceiptRecord {
  id: string;
  /** X-Request-Id of the response */
  requestId: string;
  receivedAt: number;
  method: string;
  /** the hook path after hooks.path, slashes trimmed */
  path: string;
  mappingId: string | null;
  status: number;
  outcome: ReceiptOutcome;
  /** the HeraldError code of a refused or failed request */
  errorCode: string | null;
  runId: string | null;
  eventId: number | null;
  idempotencyKey: string | null;
  authMethod: ReceiptAuth;
  /** the verified signature's mapping id, `invalid`, or null when no signature was checked */
  signature: string | null;
  clientAddress: string | null;
  bodyBytes: number;
  latencyMs: number;
  /** the receipt this request replays (an operator's replay), else null */
  replayOf: string | null;
  /** until when its payload is retained; null when it is not (or no longer) */
  retainedUntil: number | null;
  /** the request's trace id when tracing was on, else null */
  traceId?: string | null;
  /** where and why the request's mapping failed; absent when it did not */
  failure?: ReceiptFailure | null;
}

/**
 * Where and why a request's mapping failed: the stage (`schema`, `template`, `transform`,
 * `respond`, `action`; `dispatch` for a `forEach` item refused as it was dispatched), the
 * mapping, the cause (the error's message with the request's values taken out) and, for a
 * transform, the `file:line` inside the transforms folder that threw.
 */
export interface ReceiptFailure {
  stage: string;
  mappingId: string;
  cause: string;
  at?: string;
  /** a `forEach` mapping that failed for some of its items: each such item's index in the payload's array, stage, cause and place */
  items?: { index: number; stage: string; cause: string; at?: string }[];
}

/** The raw body and the non-secret headers of a request, kept for replay and backtests. */
export interface RetainedPayload {
  receiptId: string;
  path: string;
  body: Uint8Array;
  /** lower-cased names; auth, cookie and signature headers removed before storing */
  headers: Record<string, string>;
  query: Record<string, string>;
  expiresAt: number;
}

/** a position in a newest-first list: the (time, id) of the last row of the previous page */
export interface ListCursor {
  at: number;
  id: string;
}

export interface ListQuery {
  limit: number;
  /** rows strictly after this position (older) */
  after?: ListCursor;
  /** time range, inclusive, epoch ms */
  since?: number;
  until?: number;
  /** a substring of the ids and names of a row */
  q?: string;
}

export interface ReceiptQuery extends ListQuery {
  /** `error`: status >= 400; `ok`: below */
  result?: 'ok' | 'error';
  status?: number;
  mappingId?: string;
  path?: string;
  outcome?: ReceiptOutcome;
  runId?: string;
  /** replays of this receipt */
  replayOf?: string;
  /** only receipts whose payload is still retained */
  retained?: boolean;
  /** only requests whose mapping failed (a receipt with a `failure`) */
  failed?: boolean;
}

/** one minute of activity: how many, and how many failed */
export interface MinuteCount {
  minute: number;
  total: number;
  failed: number;
}

export interface ReceiptsRepo {
  /** stores a receipt, and its payload when one is given (capped by the caller) */
  record(receipt: ReceiptRecord, payload?: RetainedPayload): Promise<void>;
  get(id: string): Promise<ReceiptRecord | undefined>;
  list(query: ReceiptQuery): Promise<ReceiptRecord[]>;
  /** the retained payload of a receipt, unless expired or pruned */
  payload(receiptId: string, now: number): Promise<RetainedPayload | undefined>;
  /** the newest retained payloads of a hook path, newest first (backtests) */
  retainedForPath(path: string, limit: number, now: number): Promise<{ receipt: ReceiptRecord; payload: RetainedPayload }[]>;
  /**
   * Retention: forgets payloads expired at `now`, then the oldest ones beyond `maxTotalBytes`,
   * then receipts received before `receiptsBefore`. Returns what it removed.
   */
  prune(options: { now: number; maxTotalBytes: number; receiptsBefore: number }): Promise<{ payloads: number; receipts: number }>;
  /** bytes of retained bodies (headers not counted) */
  retainedBytes(): Promise<number>;
  /** receipts per minute since `since` (failed: status >= 400) */
  perMinute(since: number): Promise<MinuteCount[]>;
}

export interface RunQuery extends ListQuery {
  status?: RunStatus;
  agentId?: string;
  sessionKey?: string;
  /** runs of actions this mapping resolved (re-runs keep their action, so their mapping too) */
  mappingId?: string;
  rerunOf?: string;
  /** the channel of the run's delivery once resolved, else the channel its action asked for (`last` included) */
  channel?: string;
  /** runs that called tools (`any`), or with a call waiting for a person, refused (or denied), or failed */
  toolCalls?: 'any' | 'waiting' | 'refused' | 'failed';
}

export interface EventQuery extends ListQuery {
  session?: string;
  status?: EventStatus;
  /** events enqueued by requests this mapping handled (wake actions) */
  mappingId?: string;
}

export interface DeliveryQuery extends ListQuery {
  status?: DeliveryStatus;
  channel?: string;
  runId?: string;
  agentId?: string;
  /** the session the reply belongs to (`main` for heartbeat replies) */
  sessionKey?: string;
  /** replies of runs whose action this mapping resolved */
  mappingId?: string;
}

export interface SessionSummary {
  key: string;
  /**
   * the agent of its first message (a chat message names it, a hook run's message is its run's);
   * the main session, and a session whose first message names none, belong to `defaultAgentId`
   */
  agentId: string;
  messages: number;
  firstAt: number;
  lastAt: number;
}

export interface SessionQuery extends ListQuery {
  /** only sessions whose key starts with this (e.g. `hook:`) */
  prefix?: string;
  agentId?: string;
  /** the agent the main session (and any session naming none) belongs to */
  defaultAgentId: string;
}

/** Read-only queries of the operator; each answers one page of at most `limit` rows. */
export interface BrowseRepo {
  runs(query: RunQuery): Promise<RunRecord[]>;
  /** cursor id: the event id as a string */
  events(query: EventQuery): Promise<SystemEvent[]>;
  deliveries(query: DeliveryQuery): Promise<DeliveryRecord[]>;
  /** cursor: (lastAt, key) */
  sessions(query: SessionQuery): Promise<SessionSummary[]>;
  /** runs created per minute since `since` (failed: failed or timed out) */
  runsPerMinute(since: number): Promise<MinuteCount[]>;
  /** deliveries created per minute since `since` (failed: failed or abandoned) */
  deliveriesPerMinute(since: number): Promise<MinuteCount[]>;
}
