import { randomUUID } from 'node:crypto';

/**
 * The receipt the baseline writes for every request, as herald does (src/runtime/receipts): the
 * same receipts table and indexes (herald's migrations, copied), the same row, a UUID v7 id made
 * in the process, written after the response as herald writes it: through the same group commit
 * (SQLite), or the receipts of a turn in one INSERT in autocommit with one such INSERT in flight
 * (PostgreSQL, bench/baseline-pg-turn-batch.ts). Without it the baseline skipped a durable insert
 * per request that herald pays: a tilted race.
 */
export const RECEIPTS_TABLE = `
  CREATE TABLE IF NOT EXISTS receipts (
    id TEXT PRIMARY KEY, request_id TEXT NOT NULL, received_at BIGINT NOT NULL, method TEXT NOT NULL, path TEXT NOT NULL,
    mapping_id TEXT, status INTEGER NOT NULL, outcome TEXT NOT NULL, error_code TEXT, run_id TEXT, event_id BIGINT,
    idempotency_key TEXT, auth_method TEXT NOT NULL, signature TEXT, client_address TEXT, body_bytes INTEGER NOT NULL,
    latency_ms DOUBLE PRECISION NOT NULL, replay_of TEXT, retained_until BIGINT
  );
  CREATE INDEX IF NOT EXISTS receipts_received ON receipts (received_at, id);
  CREATE INDEX IF NOT EXISTS receipts_path ON receipts (path, received_at);
  CREATE INDEX IF NOT EXISTS receipts_mapping ON receipts (mapping_id, received_at);
  CREATE INDEX IF NOT EXISTS receipts_run ON receipts (run_id);
`;

/** PostgreSQL has one more, partial index */
export const RECEIPTS_TABLE_PG = `${RECEIPTS_TABLE}
  CREATE INDEX IF NOT EXISTS receipts_replay ON receipts (replay_of) WHERE replay_of IS NOT NULL;
`;

export const INSERT_RECEIPT_SQLITE = `INSERT INTO receipts (id, request_id, received_at, method, path, mapping_id, status, outcome, error_code, run_id,
  event_id, idempotency_key, auth_method, signature, client_address, body_bytes, latency_ms, replay_of, retained_until)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, 'bearer', NULL, ?, ?, ?, NULL, NULL)`;

/** a signed request's receipt (SQLite): its idempotency key, `signature` as its auth and the mappings that may take it */
export const INSERT_SIGNED_RECEIPT_SQLITE = `INSERT INTO receipts (id, request_id, received_at, method, path, mapping_id, status, outcome, error_code, run_id,
  event_id, client_address, body_bytes, latency_ms, idempotency_key, auth_method, signature, replay_of, retained_until)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'signature', ?, NULL, NULL)`;

/** the types of receiptValues' entries, in its order: the multi-row INSERT takes each as an array */
const RECEIPT_PG_TYPES = ['text', 'text', 'bigint', 'text', 'text', 'text', 'int', 'text', 'text', 'text', 'bigint', 'text', 'int', 'float8'];

/**
 * The receipts of one turn in one INSERT, as herald's PostgreSQL adapter writes them
 * (src/store/postgres/receipts-repo.ts): each column as an array, unnested into rows, so the text
 * is the same for any count; the columns the baseline never fills are constants. Named, as
 * herald's: each connection has PostgreSQL parse and plan it once, not on every call.
 */
export const INSERT_RECEIPTS_PG = { name: 'baseline_insert_receipts', text: `INSERT INTO receipts (id, request_id, received_at, method, path, mapping_id, status, outcome, error_code, run_id,
  event_id, idempotency_key, auth_method, signature, client_address, body_bytes, latency_ms, replay_of, retained_until)
  SELECT id, request_id, received_at, method, path, mapping_id, status, outcome, error_code, run_id,
    event_id, NULL, 'bearer', NULL, client_address, body_bytes, latency_ms, NULL, NULL::bigint
  FROM unnest(${RECEIPT_PG_TYPES.map((t, i) => `$${i + 1}::${t}[]`).join(', ')})
    AS r(id, request_id, received_at, method, path, mapping_id, status, outcome, error_code, run_id, event_id, client_address, body_bytes, latency_ms)` };

/** INSERT_RECEIPTS_PG's values: one array per column, the receipts in the order given */
export function receiptColumnsPg(receipts: BaselineReceipt[]): unknown[][] {
  const rows = receipts.map(receiptValues);
  return RECEIPT_PG_TYPES.map((_, i) => rows.map((row) => row[i]));
}

export interface BaselineReceipt {
  requestId: string;
  receivedAt: number;
  method: string;
  path: string;
  mappingId: string | null;
  status: number;
  outcome: string;
  errorCode: string | null;
  runId: string | null;
  eventId: number | null;
  clientAddress: string | null;
  bodyBytes: number;
  latencyMs: number;
  /** a signed request's: the sender's delivery id and the mappings its signature was checked for */
  signed?: { idempotencyKey: string | null; signature: string };
}

/** the receipt's values in the order of INSERT_RECEIPT_SQLITE's parameters and INSERT_RECEIPTS_PG's arrays */
export function receiptValues(r: BaselineReceipt): unknown[] {
  return [uuidV7(r.receivedAt), r.requestId, r.receivedAt, r.method, r.path, r.mappingId, r.status, r.outcome, r.errorCode, r.runId, r.eventId,
    r.clientAddress, r.bodyBytes, Math.round(r.latencyMs * 100) / 100];
}

/** INSERT_SIGNED_RECEIPT_SQLITE's values */
export function signedReceiptValues(r: BaselineReceipt): unknown[] {
  return [...receiptValues(r), r.signed?.idempotencyKey ?? null, r.signed?.signature ?? null];
}

/** RFC 9562 v7: 48 bits of Unix milliseconds, then randomUUID()'s random bits (as herald's src/time/uuid-v7.ts) */
export function uuidV7(now = Date.now()): string {
  const random = randomUUID();
  const time = now.toString(16).padStart(12, '0');
  return `${time.slice(0, 8)}-${time.slice(8)}-7${random.slice(15)}`;
}
