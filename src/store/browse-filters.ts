import type { ListFilter } from './list-filter.js';
import type { DeliveryQuery, EventQuery, RunQuery } from './port.js';

/** The operator lists' conditions, the same on both adapters (the receipts' are in receipt-filter.ts). */
export function runFilter(f: ListFilter, query: RunQuery): ListFilter {
  return f
    .where('status = ?', query.status)
    .where('agent_id = ?', query.agentId)
    .where('session_key = ?', query.sessionKey)
    .where('rerun_of = ?', query.rerunOf)
    .where('id IN (SELECT run_id FROM receipts WHERE mapping_id = ? AND run_id IS NOT NULL)', query.mappingId)
    .page(query, ['id', 'name', 'session_key']);
}

export function eventFilter(f: ListFilter, query: EventQuery): ListFilter {
  // event ids are integers: compared as text, every integer would sort before the cursor
  return f.where('session = ?', query.session).where('status = ?', query.status).page(query, ['text', 'session'], Number);
}

export function deliveryFilter(f: ListFilter, query: DeliveryQuery): ListFilter {
  return f
    .where('status = ?', query.status)
    .where('channel = ?', query.channel)
    .where('run_id = ?', query.runId)
    .where('agent_id = ?', query.agentId)
    .where('session_key = ?', query.sessionKey)
    .page(query, ['id', 'run_id', 'channel', 'recipient', 'session_key']);
}
