import { inRunQueue, mappingIs, RECEIPTS_MAPPING_LEAVES_OUT, RUNS_MAPPING_LEAVES_OUT, TROUBLED_RUN } from './indexed-conditions.js';
import { CREDENTIAL_MARK } from './recipient-scrub.js';
import type { ListFilter } from './list-filter.js';
import type { DeliveryQuery, EventQuery, FailedDeliveryFilter, RetryableTargets, RunQuery, SessionQuery } from '../port.js';

/** The operator lists' conditions, the same on both adapters (the receipts' are in receipt-filter.ts). */
export function runFilter(f: ListFilter, query: RunQuery): ListFilter {
  const queue = query.status !== undefined && inRunQueue(query.status);
  const listed = query.status !== undefined && !queue;
  return f
    .where('status = ?', query.status)
    // the conditions of the partial indexes that may hold the status, as written there (implied by the
    // status, but neither planner proves it from a bound value): on PostgreSQL the lists' indexes hold
    // the runs out of the queue, runs_status those that did not succeed (waiting_approval included);
    // the queue's are indexed apart (runs_session_unfinished on SQLite, runs_unfinished on PostgreSQL)
    .whereIf(listed, "status NOT IN ('queued', 'running')")
    .whereIf(listed && query.status !== 'succeeded', TROUBLED_RUN)
    .whereIf(queue, f.dialect.unfinishedRun)
    .where('agent_id = ?', query.agentId)
    .where('session_key = ?', query.sessionKey)
    .where('rerun_of = ?', query.rerunOf)
    // the expression the runs_mapping index is built on
    .where(mappingIs(runMapping(f), query.mappingId, RUNS_MAPPING_LEAVES_OUT), query.mappingId)
    // a run's delivery names the channel it resolved (`last` made concrete); before that, its action's
    .where(`COALESCE((SELECT channel FROM deliveries WHERE deliveries.run_id = runs.id LIMIT 1), ${f.json('action', 'channel')}) = ?`, query.channel)
    .whereIf(query.toolCalls !== undefined, toolCallCondition(query.toolCalls))
    .page(query, ['id', 'name', 'session_key']);
}

/** the statuses of each kind of tool call the Runs list filters on (runtime/operator/tool-call-summary.ts names them alike) */
const TOOL_CALL_STATUSES = { waiting: ['waiting_approval'], refused: ['refused', 'denied'], failed: ['failed', 'timed_out', 'interrupted'] } as const;

function toolCallCondition(kind: RunQuery['toolCalls']): string {
  const statuses = kind && kind !== 'any' ? ` AND status IN (${TOOL_CALL_STATUSES[kind].map((s) => `'${s}'`).join(', ')})` : '';
  return `EXISTS (SELECT 1 FROM tool_calls WHERE owner_kind = 'run' AND owner_id = runs.id${statuses})`;
}

/** the mapping that resolved a run's action, as the runs_mapping index spells it */
export const runMapping = (f: ListFilter) => f.dialect.runMapping;

/**
 * A delivery whose run the mapping made (`?`: the mapping): with `walk`, each delivery walked looks
 * its run up by id; else the mapping's runs are read from runs_mapping and their deliveries looked
 * up. On PostgreSQL runs_mapping holds the finished runs only (`listedRun`), so its deliveries are
 * walked (the planner weighs the walk against a join itself).
 */
function deliveryOfMapping(f: ListFilter, walk: boolean, mappingId: string | undefined): string {
  return walk || f.dialect.listedRun !== undefined
    ? `EXISTS (SELECT 1 FROM runs WHERE runs.id = deliveries.run_id AND ${runMapping(f)} = ?)`
    : `run_id IN (SELECT id FROM runs WHERE ${mappingIs(runMapping(f), mappingId, RUNS_MAPPING_LEAVES_OUT)})`;
}

export function eventFilter(f: ListFilter, query: EventQuery): ListFilter {
  // event ids are integers: compared as text, every integer would sort before the cursor
  return f
    .where('session = ?', query.session)
    .where('status = ?', query.status)
    .where(`id IN (SELECT event_id FROM receipts WHERE ${mappingIs('mapping_id', query.mappingId, RECEIPTS_MAPPING_LEAVES_OUT)} AND event_id IS NOT NULL)`, query.mappingId)
    .page(query, ['text', 'session'], Number);
}

/**
 * `manyRuns`: the mapping has many runs. Then the deliveries are walked newest first, each
 * looking its run up (a page is found early); with few, their deliveries are looked up by run
 * (walking every delivery would pass over nearly all). PostgreSQL's planner weighs this itself.
 */
export function deliveryFilter(f: ListFilter, query: DeliveryQuery, manyRuns = false): ListFilter {
  return f
    .where('status = ?', query.status)
    .where('channel = ?', query.channel)
    .where('run_id = ?', query.runId)
    .where('agent_id = ?', query.agentId)
    .where('session_key = ?', query.sessionKey)
    .where(deliveryOfMapping(f, manyRuns, query.mappingId), query.mappingId)
    .page(query, ['id', 'run_id', 'channel', 'recipient', 'session_key']);
}

/**
 * The failed deliveries an operator's bulk retry or abandon acts on, as a WHERE clause over
 * `deliveries` (the same on both adapters). With `retryable`: only those a retry can send (a
 * configured channel, a recipient where it needs one) and that no fallback delivery replaced
 * (retrying one would deliver the reply twice).
 */
export function failedDeliveryFilter(f: ListFilter, filter: FailedDeliveryFilter, retryable?: RetryableTargets): ListFilter {
  f.where('status = ?', 'failed')
    .where('channel = ?', filter.channel)
    .where(deliveryOfMapping(f, false, filter.mappingId), filter.mappingId)
    .where(`last_error ${f.dialect.like} ? ESCAPE '\\'`, filter.error === undefined ? undefined : `%${filter.error.replace(/[\\%_]/g, (m) => `\\${m}`)}%`)
    .page({ since: filter.since, until: filter.until, limit: 0 }, []);
  if (retryable) {
    const list = (values: string[]) => (values.length ? values.map((v) => f.bind(v)).join(', ') : 'NULL');
    f.whereIf(true, `channel IN (${list(retryable.channels)})`)
      .whereIf(true, `((recipient IS NOT NULL AND recipient <> '') OR channel IN (${list(retryable.recipientOptional)}))`)
      .whereIf(true, 'NOT EXISTS (SELECT 1 FROM deliveries fb WHERE fb.fallback_of = deliveries.id)')
      // a one-reply credential (Discord's interaction token) is gone once the delivery failed: nothing to send to
      .whereIf(true, `(recipient IS NULL OR recipient NOT LIKE '%${CREDENTIAL_MARK}%')`);
  }
  return f;
}

/**
 * Over session_summaries: a NULL agent_id is the default agent's (the main session, or a first
 * message naming none), so the default agent's sessions are those of its id and those of none.
 */
export function sessionFilter(f: ListFilter, query: SessionQuery): ListFilter {
  const byAgent = query.agentId === query.defaultAgentId ? '(agent_id = ? OR agent_id IS NULL)' : 'agent_id = ?';
  return f
    .where(byAgent, query.agentId)
    .where('substr(key, 1, CAST(? AS INTEGER)) = CAST(? AS TEXT)', query.prefix?.length, query.prefix)
    .page(query, ['key', 'agent_id']);
}

/** the sessions list's statement over the filter's conditions: `fallback` is the default agent's placeholder */
export const sessionsSql = (f: ListFilter, fallback: string, limit: number) =>
  `SELECT key, COALESCE(agent_id, ${fallback}) AS agent_id, messages, first_at, last_at FROM session_summaries ${f.sql()} ${f.order(limit)}`;
