import { coalescedCount } from '../queries/admission-plan.js';
import { governedFields } from './governed-fields.js';
import type { DeliveryRecord, IdempotencyRecord, ReceiptFailure, ReceiptRecord, RunRecord, RunWaitReason, SystemEvent } from '../port.js';
import { parseRunAction } from '../contracts/run-action.js';

/** Row shapes both adapters store (same column names) and how each becomes a port record. */
export interface DeliveryRow {
  id: string;
  run_id: string | null;
  kind: DeliveryRecord['kind'];
  channel: string | null;
  recipient: string | null;
  text: string;
  session_key: string;
  agent_id: string;
  status: DeliveryRecord['status'];
  attempts: number;
  parts_sent: number;
  last_error: string | null;
  next_attempt_at: number;
  lease_owner: string | null;
  lease_until: number | null;
  created_at: number;
  updated_at: number;
  delivered_at: number | null;
  fallback_of: string | null;
  retried_at: number | null;
  trace_context: string | null;
}

export const toDelivery = (r: DeliveryRow): DeliveryRecord => ({
  id: r.id,
  runId: r.run_id,
  kind: r.kind,
  channel: r.channel,
  to: r.recipient,
  text: r.text,
  sessionKey: r.session_key,
  agentId: r.agent_id,
  status: r.status,
  attempts: r.attempts,
  partsSent: r.parts_sent,
  lastError: r.last_error,
  nextAttemptAt: r.next_attempt_at,
  leaseOwner: r.lease_owner,
  leaseUntil: r.lease_until,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  deliveredAt: r.delivered_at,
  fallbackOf: r.fallback_of ?? null,
  retriedAt: r.retried_at ?? null,
  // only a delivery queued while tracing was on carries one: a record without it reads as before
  ...(r.trace_context != null && { traceContext: r.trace_context }),
});

export interface IdempotencyRow {
  scope: string;
  key: string;
  request_hash: string;
  status: IdempotencyRecord['status'];
  run_id: string;
  response_status: number | null;
  response_body: string | null;
  created_at: number;
  locked_until: number;
  expires_at: number;
}

export const toIdempotencyRecord = (r: IdempotencyRow): IdempotencyRecord => ({
  scope: r.scope,
  key: r.key,
  requestHash: r.request_hash,
  status: r.status,
  runId: r.run_id,
  responseStatus: r.response_status,
  responseBody: r.response_body,
  createdAt: r.created_at,
  lockedUntil: r.locked_until,
  expiresAt: r.expires_at,
});

export interface ReceiptRow {
  id: string;
  request_id: string;
  received_at: number;
  method: string;
  path: string;
  mapping_id: string | null;
  status: number;
  outcome: ReceiptRecord['outcome'];
  error_code: string | null;
  run_id: string | null;
  event_id: number | null;
  idempotency_key: string | null;
  auth_method: ReceiptRecord['authMethod'];
  signature: string | null;
  client_address: string | null;
  body_bytes: number;
  latency_ms: number;
  replay_of: string | null;
  retained_until: number | null;
  trace_id: string | null;
  /** JSON of a ReceiptFailure */
  failure: string | null;
}

export const toReceipt = (r: ReceiptRow): ReceiptRecord => ({
  id: r.id,
  requestId: r.request_id,
  receivedAt: r.received_at,
  method: r.method,
  path: r.path,
  mappingId: r.mapping_id,
  status: r.status,
  outcome: r.outcome,
  errorCode: r.error_code,
  runId: r.run_id,
  eventId: r.event_id,
  idempotencyKey: r.idempotency_key,
  authMethod: r.auth_method,
  signature: r.signature,
  clientAddress: r.client_address,
  bodyBytes: r.body_bytes,
  latencyMs: r.latency_ms,
  replayOf: r.replay_of,
  retainedUntil: r.retained_until,
  ...(r.trace_id != null && { traceId: r.trace_id }),
  ...(r.failure != null && { failure: JSON.parse(r.failure) as ReceiptFailure }),
});


export interface EventRow {
  id: number;
  session: string;
  text: string;
  status: SystemEvent['status'];
  created_at: number;
  /** 0/1 (SQLite) or a boolean (PostgreSQL) */
  untrusted: number | boolean;
}

export const toEvent = (r: EventRow): SystemEvent => ({ id: r.id, session: r.session, text: r.text, status: r.status, createdAt: r.created_at, untrusted: Boolean(r.untrusted) });

/** the minute an epoch-ms column falls in, as epoch ms (integer division: the same SQL on both databases) */
export const minuteOf = (column: string) => `(${column} / 60000) * 60000`;

/** A run's row as both adapters read it; `Json` is how a JSON column comes back: text (SQLite) or parsed (PostgreSQL). */
export interface RunRow<Json = unknown> {
  id: string;
  status: RunRecord['status'];
  agent_id: string;
  name: string;
  session_key: string;
  message: string;
  action: Json;
  reply: string | null;
  error: string | null;
  model: string | null;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  rerun_of: string | null;
  /** a BIGINT: PostgreSQL's driver reads it as text */
  not_before: number | string | null;
  waited_for: RunWaitReason | null;
  coalesced: Json | null;
  /** RunRecord.turnState: null until the run's turn checkpointed */
  turn_state: Json | null;
  /** RunRecord.traceContext */
  trace_context: string | null;
}

/**
 * A run row as a port record; `json` reads a JSON column as the adapter stores it, and the
 * action is read through it and checked unless the adapter read it already (`action`).
 */
export const toRunRecord = <Json>(
  r: RunRow<Json>,
  json: (value: Json) => unknown,
  action: RunRecord['action'] = parseRunAction(r.id, json(r.action), { agentId: r.agent_id, message: r.message }),
): RunRecord => ({
  id: r.id,
  status: r.status,
  agentId: r.agent_id,
  name: r.name,
  sessionKey: r.session_key,
  message: r.message,
  action,
  reply: r.reply,
  error: r.error,
  // only when one answered: a record without it reads as before the column existed
  ...(r.model != null && { model: r.model }),
  createdAt: r.created_at,
  startedAt: r.started_at,
  finishedAt: r.finished_at,
  // only a re-run carries the link: a record without one reads as before
  ...(r.rerun_of !== null && { rerunOf: r.rerun_of }),
  // only a governed run's record carries them
  ...((r.not_before ?? r.waited_for ?? r.coalesced) !== null &&
    governedFields(r.not_before, r.waited_for, r.coalesced === null ? null : coalescedCount(json(r.coalesced)))),
  // only a run whose turn called tools has one
  ...(r.turn_state != null && { turnState: json(r.turn_state) as Record<string, unknown> }),
  // only a run made while tracing was on has one
  ...(r.trace_context != null && { traceContext: r.trace_context }),
});
