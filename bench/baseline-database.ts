import { openDatabase } from '../src/store/sqlite/open-database.js';

/**
 * Which tables a baseline writes into (BENCH_BASELINE_SCHEMA=both, the default, runs one of each):
 * - `herald` (the default): a file made by herald's own migrations, so every row the baseline
 *   writes costs what the same row costs herald: the same indexes (the console's lists, the
 *   start-up recovery's) and the same counting triggers (/metrics), which is the durable work a
 *   request does. The baseline's copies of herald's DDL drifted as herald's schema grew; this cannot.
 * - `own`: the baseline's own tables, with only the indexes its own reads need: the floor an
 *   integrator's glue would stand on, for the cost of what herald keeps beyond it.
 */
export type BaselineSchema = 'herald' | 'own';

/** the baselines a run measures: both by default (herald gets a column against each), or one */
export function baselineSchemasOf(value: string | undefined): BaselineSchema[] {
  if (value === undefined || value === '' || value === 'both') return ['own', 'herald'];
  if (value === 'herald' || value === 'own') return [value];
  throw new Error(`BENCH_BASELINE_SCHEMA must be both, herald or own, not ${value}`);
}

/** how a baseline is named in the bench's rows and columns */
export const BASELINE_LABEL: Record<BaselineSchema, string> = { own: 'same-records baseline', herald: 'herald-schema baseline' };

/** makes the baseline's database file before the baseline opens it (its CREATE ... IF NOT EXISTS then find herald's tables) */
export function prepareBaselineDatabase(file: string, schema: BaselineSchema): void {
  if (schema === 'herald') openDatabase(file).close();
}
