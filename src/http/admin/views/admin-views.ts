import { HeraldError } from '../../../errors.js';
import { traceIdOf } from '../../../tracing/traceparent.js';
import { isoTime as iso } from '../../../time/iso-time.js';
import type { ListCursor, ReceiptRecord, RunRecord, SessionSummary, SystemEvent } from '../../../store/port.js';

/** an opaque cursor: base64url of [time, id] of the last row of a page */
export function encodeCursor(at: number, id: string | number): string {
  return Buffer.from(JSON.stringify([at, String(id)])).toString('base64url');
}

export function decodeCursor(cursor: string | undefined): ListCursor | undefined {
  if (cursor === undefined) return undefined;
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof at === 'number' && typeof id === 'string') return { at, id };
  } catch {
    // fall through to the 400
  }
  throw new HeraldError('HERALD_INVALID_FIELD', 'cursor must be a cursor from a previous page', { param: 'cursor' });
}

/**
 * One page: the store is asked for `limit + 1` rows, the extra one only says there is more.
 * `position` gives a row's (time, id) for the cursor.
 */
export function pageOf<T, V>(rows: T[], limit: number, position: (row: T) => [number, string | number], view: (row: T) => V) {
  const more = rows.length > limit;
  const shown = more ? rows.slice(0, limit) : rows;
  const last = shown.at(-1);
  return { data: shown.map(view), nextCursor: more && last ? encodeCursor(...position(last)) : null };
}

export const receiptView = (r: ReceiptRecord) => ({ ...r, receivedAt: iso(r.receivedAt)!, retainedUntil: iso(r.retainedUntil), traceId: r.traceId ?? null, failure: r.failure ?? null });

export const runView = (r: RunRecord) => ({
  id: r.id,
  status: r.status,
  agentId: r.agentId,
  name: r.name,
  sessionKey: r.sessionKey,
  message: r.message,
  reply: r.reply,
  error: r.error,
  mappingId: ((r.action.source as { mappingId?: string } | undefined)?.mappingId ?? null) as string | null,
  rerunOf: r.rerunOf ?? null,
  model: r.model ?? null,
  waited: r.waitedFor ? { reason: r.waitedFor, until: iso(r.notBefore ?? null), ms: r.startedAt === null ? null : r.startedAt - r.createdAt } : null,
  coalescedCount: r.coalescedCount ?? null,
  traceId: traceIdOf(r.traceContext) ?? null,
  createdAt: iso(r.createdAt),
  startedAt: iso(r.startedAt),
  finishedAt: iso(r.finishedAt),
});

export const eventView = (e: SystemEvent) => ({ id: e.id, session: e.session, text: e.text, status: e.status, createdAt: iso(e.createdAt), untrusted: e.untrusted });

export const sessionView = (s: SessionSummary) => ({ key: s.key, agentId: s.agentId, messages: s.messages, firstAt: iso(s.firstAt), lastAt: iso(s.lastAt) });
