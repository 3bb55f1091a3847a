import type { RunStatus } from '../port.js';

/**
 * The conditions of the partial indexes the operator lists read, as both adapters' migrations
 * write them. A list that may read such an index states its condition whole: neither planner
 * proves it from a bound value.
 */

/**
 * runs_status's: a finished run that did not succeed. Most runs succeed, so a list of the
 * succeeded ones finds its page walking the runs newest first; the others are few and indexed.
 * Three inequalities, not `NOT IN` a list of three: SQLite evaluates a list of more than two
 * through a temporary table it builds at every execution of each statement writing a run.
 */
export const TROUBLED_RUN = "status <> 'queued' AND status <> 'running' AND status <> 'succeeded'";

/**
 * The queue's statuses, whose runs both adapters index apart (runs_session_unfinished, runs_unfinished).
 * Every other status is indexed with the finished runs: a run waiting for approval too, which is
 * unfinished but sits in runs_status and the lists' indexes (their conditions name the queue's two statuses).
 */
export const inRunQueue = (status: RunStatus): boolean => status === 'queued' || status === 'running';

/** the built-in endpoints' mapping ids (src/mappings/loading/builtin-mappings.ts): `/hooks/agent`, `/hooks/wake` */
export const BUILTIN_MAPPING_IDS: readonly string[] = ['agent', 'wake'];

/**
 * The mappings runs_mapping leaves out: the direct `/hooks/agent`'s, so a direct run writes no
 * entry and a list of its runs walks them by time. The built-in `/hooks/wake` makes no runs: its
 * id costs the index nothing, and a list of it stays an index read.
 */
export const RUNS_MAPPING_LEAVES_OUT: readonly string[] = ['agent'];

/** the mappings receipts_mapping leaves out: both built-ins, whose every request would write it */
export const RECEIPTS_MAPPING_LEAVES_OUT = BUILTIN_MAPPING_IDS;

/** `column = ?` for a mapping, stating the mapping index's condition where the index holds that mapping's rows */
export function mappingIs(column: string, mappingId: string | undefined, leftOut: readonly string[]): string {
  if (mappingId === undefined || leftOut.includes(mappingId)) return `${column} = ?`;
  return `${column} = ? AND ${column} NOT IN (${leftOut.map((id) => `'${id}'`).join(', ')})`;
}
