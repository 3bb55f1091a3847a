import type { GroupCommit } from './group-commit.js';
import { MemoryFreshness } from './memory-freshness.js';
import type { SqliteDatabase } from './open-database.js';

/** holders remembered at most: past it, the memory starts again empty (they are looked up again) */
const MAX_HOLDERS = 50_000;

/**
 * From which day each key's or agent's totals are kept (`usage_tracked`), as looked up once
 * and remembered, an answer of none included: every usage row asks about its key and its agent,
 * and nearly all of them have no budget, so nearly every row would seek that table twice for
 * nothing. What is remembered is dropped when MemoryFreshness says it may be stale (a rollback,
 * another connection's commit): `track` writes the table in a work of the group commit and says
 * so here, and nothing else in this process writes it. For a group commit's works only.
 */
export class TrackedHolders {
  private readonly since = new Map<string, number | null>();
  private readonly freshness: MemoryFreshness;
  private readonly lookup;

  constructor(db: SqliteDatabase, commits: GroupCommit) {
    this.freshness = new MemoryFreshness(commits);
    this.lookup = db.prepare<[string], number>('SELECT since FROM usage_tracked WHERE whom = ?').pluck();
  }

  /** the first day `whom`'s totals are kept from; undefined when they are not kept */
  of(whom: string): number | undefined {
    if (this.freshness.moved() || this.since.size >= MAX_HOLDERS) this.since.clear();
    let since = this.since.get(whom);
    if (since === undefined) {
      since = this.lookup.get(whom) ?? null;
      this.since.set(whom, since);
    }
    return since ?? undefined;
  }

  /** `whom`'s totals are kept from `since` on: written to usage_tracked by the work running now */
  tracked(whom: string, since: number): void {
    if (this.freshness.moved()) this.since.clear();
    this.since.set(whom, since);
  }
}
