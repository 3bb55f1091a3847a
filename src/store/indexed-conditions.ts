/**
 * The conditions of the partial indexes the operator lists read, as both adapters' migrations
 * write them. A list that may read such an index states its condition whole: neither planner
 * proves it from a bound value.
 */

/**
 * runs_status's: a finished run that did not succeed. Most runs succeed, so a list of the
 * succeeded ones finds its page walking the runs newest first; the others are few and indexed.
 */
export const TROUBLED_RUN = "status NOT IN ('queued', 'running', 'succeeded')";

/**
 * The built-in endpoints' mapping ids (`/hooks/agent`, `/hooks/wake`; src/mappings/builtin-mappings.ts).
 * runs_mapping and receipts_mapping hold what the other mappings made: a direct request or run
 * writes neither, and a list of a built-in's walks the rows by time instead.
 */
export const BUILTIN_MAPPING_IDS: readonly string[] = ['agent', 'wake'];

/** `mapping = ?` over `column`, stating the mapping indexes' condition where they hold that mapping's rows */
export function mappingIs(column: string, mappingId: string | undefined): string {
  if (mappingId === undefined || BUILTIN_MAPPING_IDS.includes(mappingId)) return `${column} = ?`;
  return `${column} = ? AND ${column} NOT IN (${BUILTIN_MAPPING_IDS.map((id) => `'${id}'`).join(', ')})`;
}
