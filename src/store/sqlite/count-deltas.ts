import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from './open-database.js';

/**
 * The changes a group commit's writes made to the `store_counts` rows of runs and events (what
 * /metrics reports), added up in memory and written once at the group's end, in its transaction:
 * a crash keeps the rows and their counts or neither, and a restart reads counts that are exact.
 * Once per group, not per row: a row trigger would write `store_counts` at every run's insert,
 * claim and end. Each write is `n = n + delta`: another process writing the file (a CLI command)
 * adds its own.
 */
export class CountDeltas {
  private deltas = new Map<string, number>();
  private add?: Statement<[number, string]>;

  constructor(private readonly db: SqliteDatabase) {}

  /** `name` (`runs:queued`, `events:pending`, ...) moved by `by` in the group being written */
  count(name: string, by: number): void {
    if (by !== 0) this.deltas.set(name, (this.deltas.get(name) ?? 0) + by);
  }

  /** what is counted so far: given back to `restore` when a write is undone alone (its savepoint rolled back) */
  snapshot(): Map<string, number> {
    return new Map(this.deltas);
  }

  restore(deltas: Map<string, number>): void {
    this.deltas = deltas;
  }

  /** forgets the deltas (an attempt starts, or was rolled back) */
  clear(): void {
    if (this.deltas.size) this.deltas = new Map();
  }

  /** writes the deltas, in the group's transaction */
  write(): void {
    if (this.deltas.size === 0) return;
    // prepared on first use: a database without store_counts (a test's) never counts
    this.add ??= this.db.prepare<[number, string]>('UPDATE store_counts SET n = n + ? WHERE name = ?');
    for (const [name, by] of this.deltas) if (by !== 0) this.add.run(by, name);
    this.deltas = new Map();
  }
}
