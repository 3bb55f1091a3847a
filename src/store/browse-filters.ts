import type { ListFilter } from './list-filter.js';
import type { DeliveryQuery, EventQuery, RunQuery, SessionQuery } from './port.js';

/** The operator lists' conditions, the same on both adapters (the receipts' are in receipt-filter.ts). */
export function runFilter(f: ListFilter, query: RunQuery): ListFilter {
  return f
    .where('status = ?', query.status)
    .where('agent_id = ?', query.agentId)
    .where('session_key = ?', query.sessionKey)
    .where('rerun_of = ?', query.rerunOf)
    // the expression the runs_mapping index is built on
    .where(`${runMapping(f)} = ?`, query.mappingId)
    // a run's delivery names the channel it resolved (`last` made concrete); before that, its action's
    .where(`COALESCE((SELECT channel FROM deliveries WHERE deliveries.run_id = runs.id LIMIT 1), ${f.json('action', 'channel')}) = ?`, query.channel)
    .page(query, ['id', 'name', 'session_key']);
}

/** the mapping that resolved a run's action, as the runs_mapping index spells it */
export const runMapping = (f: ListFilter) => f.json('action', 'source', 'mappingId');

export function eventFilter(f: ListFilter, query: EventQuery): ListFilter {
  // event ids are integers: compared as text, every integer would sort before the cursor
  return f
    .where('session = ?', query.session)
    .where('status = ?', query.status)
    .where('id IN (SELECT event_id FROM receipts WHERE mapping_id = ? AND event_id IS NOT NULL)', query.mappingId)
    .page(query, ['text', 'session'], Number);
}

export function deliveryFilter(f: ListFilter, query: DeliveryQuery): ListFilter {
  return f
    .where('status = ?', query.status)
    .where('channel = ?', query.channel)
    .where('run_id = ?', query.runId)
    .where('agent_id = ?', query.agentId)
    .where('session_key = ?', query.sessionKey)
    .where(`run_id IN (SELECT id FROM runs WHERE ${runMapping(f)} = ?)`, query.mappingId)
    .page(query, ['id', 'run_id', 'channel', 'recipient', 'session_key']);
}

/** over the adapter's rows of (key, agent_id, messages, first_at, last_at): one per session */
export function sessionFilter(f: ListFilter, query: SessionQuery): ListFilter {
  return f
    .where('substr(key, 1, CAST(? AS INTEGER)) = CAST(? AS TEXT)', query.prefix?.length, query.prefix)
    .where('agent_id = ?', query.agentId)
    .page(query, ['key', 'agent_id']);
}
