import type { DeliveryRecord, IdempotencyRecord } from './port.js';

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
