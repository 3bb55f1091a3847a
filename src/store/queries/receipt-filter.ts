import { mappingIs, RECEIPTS_MAPPING_LEAVES_OUT } from './indexed-conditions.js';
import type { ListFilter } from './list-filter.js';
import type { ReceiptQuery } from '../port.js';

/** the receipts list's conditions, the same on both adapters */
export function receiptFilter(f: ListFilter, query: ReceiptQuery, now: number): ListFilter {
  return f
    .where('status = ?', query.status)
    // receipts_failed's condition, stated whole so both planners see the list may read it
    // a mapping's failure always answers 400 or above: its list reads receipts_failed too
    .whereIf(query.result === 'error' || query.failed === true || (query.status !== undefined && query.status >= 400), 'status >= 400')
    .whereIf(query.failed === true, 'failure IS NOT NULL')
    .whereIf(query.result === 'ok', 'status < 400')
    .where(mappingIs('mapping_id', query.mappingId, RECEIPTS_MAPPING_LEAVES_OUT), query.mappingId)
    .where('path = ?', query.path)
    .where('outcome = ?', query.outcome)
    .where('run_id = ?', query.runId)
    .where('replay_of = ?', query.replayOf)
    .where('retained_until > ?', query.retained ? now : undefined)
    .page(query, ['id', 'request_id', 'path', 'mapping_id', 'run_id', 'idempotency_key']);
}
