import type { MinuteCount, ReceiptRecord, ReceiptsRepo, RetainedPayload } from '../port.js';
import { minuteOf, toReceipt, type ReceiptRow as Row } from '../rows/record-rows.js';
import type { GroupCommit } from './group-commit.js';
import { ListFilter, sqliteDialect } from '../queries/list-filter.js';
import { receiptFilter } from '../queries/receipt-filter.js';
import type { SqliteDatabase } from './open-database.js';

interface PayloadRow {
  receipt_id: string;
  path: string;
  body: Buffer;
  headers: string;
  query: string;
  expires_at: number;
}

const toPayload = (r: PayloadRow): RetainedPayload => ({
  receiptId: r.receipt_id,
  path: r.path,
  body: new Uint8Array(r.body),
  headers: JSON.parse(r.headers) as Record<string, string>,
  query: JSON.parse(r.query) as Record<string, string>,
  expiresAt: r.expires_at,
});

/**
 * A retention pass's last step: the receipts whose payload is gone (expired, or deleted past the
 * cap) retain nothing. Read from receipts_retained (migration 55), the receipts retaining one. ? now.
 */
export const CLEAR_RETAINED =
  'UPDATE receipts SET retained_until = NULL WHERE retained_until IS NOT NULL AND (retained_until <= ? OR id NOT IN (SELECT receipt_id FROM retained_payloads))';

/**
 * A receipt is written through the group commit: under load it shares the commit of the request's
 * own run insert. Without a retained payload (nearly always) it is one INSERT, bound by position,
 * with no savepoint of its own around it.
 */
export function sqliteReceiptsRepo(db: SqliteDatabase, commits: GroupCommit): ReceiptsRepo {
  const insert = db.prepare(
    `INSERT INTO receipts (id, request_id, received_at, method, path, mapping_id, status, outcome, error_code, run_id, event_id,
       idempotency_key, auth_method, signature, client_address, body_bytes, latency_ms, replay_of, retained_until, trace_id, failure)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertReceipt = (r: ReceiptRecord) =>
    insert.run(r.id, r.requestId, r.receivedAt, r.method, r.path, r.mappingId, r.status, r.outcome, r.errorCode, r.runId, r.eventId,
      r.idempotencyKey, r.authMethod, r.signature, r.clientAddress, r.bodyBytes, r.latencyMs, r.replayOf, r.retainedUntil, r.traceId ?? null, r.failure ? JSON.stringify(r.failure) : null);
  const insertPayload = db.prepare(
    `INSERT INTO retained_payloads (receipt_id, path, body, bytes, headers, query, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  // a group commit's work: atomic as one (group-commit.ts)
  const recordWithPayload = (receipt: ReceiptRecord, payload: RetainedPayload) => {
    insertReceipt(receipt);
    const body = Buffer.from(payload.body);
    insertPayload.run(receipt.id, payload.path, body, body.byteLength, JSON.stringify(payload.headers), JSON.stringify(payload.query), receipt.receivedAt, payload.expiresAt);
  };
  const get = db.prepare<[string], Row>('SELECT * FROM receipts WHERE id = ?');
  const payload = db.prepare<[string, number], PayloadRow>('SELECT * FROM retained_payloads WHERE receipt_id = ? AND expires_at > ?');
  const forPath = db.prepare<[string, number, number], Row & PayloadRow>(
    `SELECT r.*, p.receipt_id, p.body, p.headers, p.query, p.expires_at FROM retained_payloads p JOIN receipts r ON r.id = p.receipt_id
     WHERE p.path = ? AND p.expires_at > ? ORDER BY p.created_at DESC, p.receipt_id DESC LIMIT ?`,
  );
  const expired = db.prepare<[number]>('DELETE FROM retained_payloads WHERE expires_at <= ?');
  const total = db.prepare<[], { n: number | null }>('SELECT SUM(bytes) AS n FROM retained_payloads');
  const oldest = db.prepare<[], { receipt_id: string; bytes: number }>('SELECT receipt_id, bytes FROM retained_payloads ORDER BY created_at, receipt_id');
  const dropPayload = db.prepare<[string]>('DELETE FROM retained_payloads WHERE receipt_id = ?');
  const unmark = db.prepare<[number]>(CLEAR_RETAINED);
  const oldReceipts = db.prepare<[number]>('DELETE FROM receipts WHERE received_at < ?');
  const perMinute = db.prepare<[number], MinuteCount>(
    `SELECT ${minuteOf('received_at')} AS minute, COUNT(*) AS total, SUM(status >= 400) AS failed
     FROM receipts WHERE received_at >= ? GROUP BY minute ORDER BY minute`,
  );

  const prune = db.transaction((now: number, maxTotalBytes: number, receiptsBefore: number) => {
    let payloads = expired.run(now).changes;
    let bytes = total.get()?.n ?? 0;
    if (bytes > maxTotalBytes) {
      // the oldest go first; iterate() would hold a read cursor across the deletes
      for (const row of oldest.all()) {
        if (bytes <= maxTotalBytes) break;
        dropPayload.run(row.receipt_id);
        bytes -= row.bytes;
        payloads++;
      }
    }
    const receipts = oldReceipts.run(receiptsBefore).changes;
    unmark.run(now);
    return { payloads, receipts };
  });

  return {
    // the group commit's promise itself: one promise fewer per request
    record: (receipt, retained) => commits.run(retained ? () => recordWithPayload(receipt, retained) : () => void insertReceipt(receipt)),
    async get(id) {
      const row = get.get(id);
      return row && toReceipt(row);
    },
    async list(query) {
      const f = receiptFilter(new ListFilter(sqliteDialect, 'received_at', 'id'), query, Date.now());
      const rows = db.prepare(`SELECT * FROM receipts ${f.sql()} ${f.order(query.limit)}`).all(f.named) as Row[];
      return rows.map(toReceipt);
    },
    async payload(receiptId, now) {
      const row = payload.get(receiptId, now);
      return row && toPayload(row);
    },
    async retainedForPath(path, limit, now) {
      return forPath.all(path, now, limit).map((row) => ({ receipt: toReceipt(row), payload: toPayload(row) }));
    },
    async prune({ now, maxTotalBytes, receiptsBefore }) {
      return prune(now, maxTotalBytes, receiptsBefore);
    },
    async retainedBytes() {
      return total.get()?.n ?? 0;
    },
    async perMinute(since) {
      return perMinute.all(since);
    },
  };
}
