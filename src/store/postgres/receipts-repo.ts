import type pg from 'pg';
import { ListFilter, postgresDialect } from '../queries/list-filter.js';
import type { MinuteCount, ReceiptRecord, ReceiptsRepo, RetainedPayload } from '../port.js';
import { minuteOf, toReceipt, type ReceiptRow as Row } from '../rows/record-rows.js';
import { receiptFilter } from '../queries/receipt-filter.js';
import { prepared, query, transaction } from './pg-pool.js';
import { PgTurnBatch, type Statement } from './turn-batch.js';

const RECEIPT_VALUES = Array.from({ length: 21 }, (_, i) => `$${i + 1}`).join(', ');

interface PayloadRow {
  receipt_id: string;
  path: string;
  body: Buffer;
  headers: Record<string, string>;
  query: Record<string, string>;
  expires_at: number;
}

const toPayload = (r: PayloadRow): RetainedPayload => ({
  receiptId: r.receipt_id,
  path: r.path,
  body: new Uint8Array(r.body),
  headers: r.headers,
  query: r.query,
  expiresAt: r.expires_at,
});

const RECEIPT_COLUMNS = `id, request_id, received_at, method, path, mapping_id, status, outcome, error_code, run_id, event_id,
  idempotency_key, auth_method, signature, client_address, body_bytes, latency_ms, replay_of, retained_until, trace_id, failure`;

const valuesOf = (r: ReceiptRecord) => [r.id, r.requestId, r.receivedAt, r.method, r.path, r.mappingId, r.status, r.outcome, r.errorCode, r.runId, r.eventId,
  r.idempotencyKey, r.authMethod, r.signature, r.clientAddress, r.bodyBytes, r.latencyMs, r.replayOf, r.retainedUntil, r.traceId ?? null, r.failure ? JSON.stringify(r.failure) : null];

/** the column types, in RECEIPT_COLUMNS' order, for the batch's arrays */
const RECEIPT_TYPES = ['text', 'text', 'bigint', 'text', 'text', 'text', 'int', 'text', 'text', 'text', 'bigint', 'text', 'text', 'text', 'text', 'int', 'float8', 'text', 'bigint', 'text', 'text'];

const INSERT_RECEIPTS = prepared('insert_receipts', `INSERT INTO receipts (${RECEIPT_COLUMNS}) SELECT * FROM unnest(${RECEIPT_TYPES.map((t, i) => `$${i + 1}::${t}[]`).join(', ')})`);

/** the receipts of one turn in one INSERT: each column as an array, unnested into rows (the text is the same for any count) */
function insertReceipts(receipts: ReceiptRecord[]): Statement {
  const rows = receipts.map(valuesOf);
  return {
    text: INSERT_RECEIPTS,
    values: RECEIPT_TYPES.map((_, i) => rows.map((row) => row[i])),
  };
}

/**
 * A retention pass's last step: the receipts whose payload is gone (expired, or deleted past the
 * cap) retain nothing. Read from receipts_retained (migration 47), the receipts retaining one. $1 now.
 */
export const CLEAR_RETAINED = `UPDATE receipts SET retained_until = NULL WHERE retained_until IS NOT NULL
  AND (retained_until <= $1 OR NOT EXISTS (SELECT 1 FROM retained_payloads p WHERE p.receipt_id = receipts.id))`;

/** Receipts over PostgreSQL: the same rules as the SQLite adapter; pruning deletes in one transaction. */
export function postgresReceiptsRepo(pool: pg.Pool): ReceiptsRepo & { drain(): Promise<void> } {
  // a receipt is written after its response: those asked for while the last statement was on its way share the next, and its commit
  const batch = new PgTurnBatch(pool, insertReceipts, undefined, 1);
  return {
    drain: () => batch.drain(),
    /**
     * Without a payload: in the turn's batch (one statement, one commit, for every receipt of the
     * turn). With one: the receipt and its payload in one INSERT ... WITH, applied atomically.
     */
    async record(r, payload) {
      if (!payload) return batch.add(r);
      const values = valuesOf(r);
      const body = Buffer.from(payload.body);
      await query(
        pool,
        `WITH receipt AS (INSERT INTO receipts (${RECEIPT_COLUMNS}) VALUES (${RECEIPT_VALUES}) RETURNING id)
         INSERT INTO retained_payloads (receipt_id, path, body, bytes, headers, query, created_at, expires_at)
         SELECT id, $22, $23, $24, $25::jsonb, $26::jsonb, $27, $28 FROM receipt`,
        [...values, payload.path, body, body.byteLength, JSON.stringify(payload.headers), JSON.stringify(payload.query), r.receivedAt, payload.expiresAt],
      );
    },
    async get(id) {
      const { rows } = await query<Row>(pool, `SELECT ${RECEIPT_COLUMNS} FROM receipts WHERE id = $1`, [id]);
      return rows[0] && toReceipt(rows[0]);
    },
    async list(q) {
      const f = receiptFilter(new ListFilter(postgresDialect, 'received_at', 'id'), q, Date.now());
      const text = `SELECT ${RECEIPT_COLUMNS} FROM receipts ${f.sql()} ${f.order(q.limit)}`;
      return (await query<Row>(pool, text, f.values)).rows.map(toReceipt);
    },
    async payload(receiptId, now) {
      const { rows } = await query<PayloadRow>(pool, 'SELECT * FROM retained_payloads WHERE receipt_id = $1 AND expires_at > $2', [receiptId, now]);
      return rows[0] && toPayload(rows[0]);
    },
    async retainedForPath(path, limit, now) {
      const { rows } = await query<Row & PayloadRow>(
        pool,
        `SELECT r.*, p.receipt_id, p.body, p.headers, p.query, p.expires_at FROM retained_payloads p JOIN receipts r ON r.id = p.receipt_id
         WHERE p.path = $1 AND p.expires_at > $2 ORDER BY p.created_at DESC, p.receipt_id DESC LIMIT $3`,
        [path, now, limit],
      );
      return rows.map((row) => ({ receipt: toReceipt(row), payload: toPayload(row) }));
    },
    async prune({ now, maxTotalBytes, receiptsBefore }) {
      return transaction(pool, async (client) => {
        const expired = await client.query('DELETE FROM retained_payloads WHERE expires_at <= $1', [now]);
        // beyond the cap, the oldest go: a running total from the newest down, everything past the cap deleted
        const over = await client.query(
          `DELETE FROM retained_payloads WHERE receipt_id IN (
             SELECT receipt_id FROM (
               SELECT receipt_id, SUM(bytes) OVER (ORDER BY created_at DESC, receipt_id DESC) AS running FROM retained_payloads
             ) t WHERE running > $1)`,
          [maxTotalBytes],
        );
        const receipts = await client.query('DELETE FROM receipts WHERE received_at < $1', [receiptsBefore]);
        await client.query(CLEAR_RETAINED, [now]);
        return { payloads: (expired.rowCount ?? 0) + (over.rowCount ?? 0), receipts: receipts.rowCount ?? 0 };
      });
    },
    async retainedBytes() {
      const { rows } = await query<{ n: number | null }>(pool, 'SELECT SUM(bytes)::bigint AS n FROM retained_payloads');
      return rows[0]?.n ?? 0;
    },
    async perMinute(since) {
      const { rows } = await query<MinuteCount>(
        pool,
        `SELECT ${minuteOf('received_at')} AS minute, COUNT(*)::int AS total, COUNT(*) FILTER (WHERE status >= 400)::int AS failed
         FROM receipts WHERE received_at >= $1 GROUP BY minute ORDER BY minute`,
        [since],
      );
      return rows;
    },
  };
}
