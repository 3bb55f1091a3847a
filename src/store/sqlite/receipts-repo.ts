import type { MinuteCount, ReceiptQuery, ReceiptRecord, ReceiptsRepo, RetainedPayload } from '../port.js';
import { RECEIPTS_MAPPING_LEAVES_OUT } from '../queries/indexed-conditions.js';
import { minuteOf, toReceipt, type ReceiptRow as Row } from '../rows/record-rows.js';
import type { GroupCommit } from './group-commit.js';
import { ListFilter, sqliteDialect } from '../queries/list-filter.js';
import { receiptFilter } from '../queries/receipt-filter.js';
import type { SqliteDatabase } from './open-database.js';
import { firstIdAt, rowsSinceSql, sinceParams, timeKeyedPage, unkeyedAt, unkeyedProbe, type UnkeyedInRange } from './time-keyed-rows.js';

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

// by the time received: the receipts keyed by it (all that herald records) through the primary key, the others through receipts_received_unkeyed
export const OLD_KEYED_RECEIPTS = 'DELETE FROM receipts WHERE unkeyed_at IS NULL AND id < @beforeId AND received_at < @before';
export const OLD_UNKEYED_RECEIPTS = 'DELETE FROM receipts INDEXED BY receipts_received_unkeyed WHERE unkeyed_at IS NOT NULL AND unkeyed_at < @before';
export const RECEIPTS_PER_MINUTE = `SELECT ${minuteOf('received_at')} AS minute, COUNT(*) AS total, SUM(status >= 400) AS failed
  FROM (${rowsSinceSql('receipts', 'receipts_received_unkeyed', 'received_at', 'received_at, status')}) GROUP BY minute ORDER BY minute`;

/**
 * A page of the receipts list: a list no other index orders walks them by time, through the
 * primary key and receipts_received_unkeyed (time-keyed-rows.ts)
 */
export function receiptsPageSql(query: ReceiptQuery, now: number, unkeyedInRange: UnkeyedInRange): { sql: string; named: Record<string, unknown> } {
  const f = receiptFilter(new ListFilter(sqliteDialect, 'received_at', 'id'), query, now);
  if (walksReceiptsByTime(query)) return { sql: timeKeyedPage('receipts', 'receipts_received_unkeyed', 'received_at', f, query, unkeyedInRange), named: f.named };
  return { sql: `SELECT * FROM receipts ${f.sql()} ${f.order(query.limit)}`, named: f.named };
}

/** a receipts list no index orders but by time: none of the failures' (receipts_failed), a mapping's, a path's, a run's or the retained ones' */
function walksReceiptsByTime(query: ReceiptQuery): boolean {
  const failures = query.result === 'error' || query.failed === true || (query.status !== undefined && query.status >= 400);
  const mapping = query.mappingId !== undefined && !RECEIPTS_MAPPING_LEAVES_OUT.includes(query.mappingId);
  return !failures && !mapping && query.path === undefined && query.runId === undefined && !query.retained;
}

/**
 * A receipt is written through the group commit: under load it shares the commit of the request's
 * own run insert. Without a retained payload (nearly always) it is one INSERT, bound by position,
 * with no savepoint of its own around it.
 */
export function sqliteReceiptsRepo(db: SqliteDatabase, commits: GroupCommit): ReceiptsRepo {
  const insert = db.prepare(
    `INSERT INTO receipts (id, request_id, received_at, method, path, mapping_id, status, outcome, error_code, run_id, event_id,
       idempotency_key, auth_method, signature, client_address, body_bytes, latency_ms, replay_of, retained_until, trace_id, failure, unkeyed_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertReceipt = (r: ReceiptRecord) =>
    insert.run(r.id, r.requestId, r.receivedAt, r.method, r.path, r.mappingId, r.status, r.outcome, r.errorCode, r.runId, r.eventId,
      r.idempotencyKey, r.authMethod, r.signature, r.clientAddress, r.bodyBytes, r.latencyMs, r.replayOf, r.retainedUntil, r.traceId ?? null, r.failure ? JSON.stringify(r.failure) : null, unkeyedAt(r.id, r.receivedAt));
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
  const oldKeyed = db.prepare<[{ beforeId: string; before: number }]>(OLD_KEYED_RECEIPTS);
  const oldUnkeyed = db.prepare<[{ before: number }]>(OLD_UNKEYED_RECEIPTS);
  const oldReceipts = (before: number) => oldKeyed.run({ beforeId: firstIdAt(before), before }).changes + oldUnkeyed.run({ before }).changes;
  const perMinute = db.prepare<[{ from: string; since: number }], MinuteCount>(RECEIPTS_PER_MINUTE);
  const unkeyedInRange = unkeyedProbe(db);

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
    const receipts = oldReceipts(receiptsBefore);
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
      const { sql, named } = receiptsPageSql(query, Date.now(), unkeyedInRange);
      const rows = db.prepare(sql).all(named) as Row[];
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
      return perMinute.all(sinceParams(since));
    },
  };
}
