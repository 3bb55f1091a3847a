import { openDatabase } from '../src/store/sqlite/open-database.js';

/**
 * Which tables the baseline writes into (BENCH_BASELINE_SCHEMA):
 * - `herald` (the default): a file made by herald's own migrations, so every row the baseline
 *   writes costs what the same row costs herald: the same indexes (the console's lists, the
 *   start-up recovery's) and the same counting triggers (/metrics), which is the durable work a
 *   request does. The baseline's copies of herald's DDL drifted as herald's schema grew; this cannot.
 * - `own`: the baseline's own tables, with only the indexes its own reads need: the floor an
 *   integrator's glue would stand on, for the cost of what herald keeps beyond it.
 */
export type BaselineSchema = 'herald' | 'own';

export function baselineSchemaOf(value: string | undefined): BaselineSchema {
  if (value === undefined || value === '' || value === 'herald') return 'herald';
  if (value === 'own') return 'own';
  throw new Error(`BENCH_BASELINE_SCHEMA must be herald or own, not ${value}`);
}

/** makes the baseline's database file before the baseline opens it (its CREATE ... IF NOT EXISTS then find herald's tables) */
export function prepareBaselineDatabase(file: string, schema: BaselineSchema): void {
  if (schema === 'herald') openDatabase(file).close();
}
