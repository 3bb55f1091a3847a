import type { RunRow } from '../rows/record-rows.js';
import type { GroupCommit } from './group-commit.js';
import { MemoryFreshness } from './memory-freshness.js';

/** a run's row as a claim returns it: its record's columns, then its rowid as `seq` */
export type ClaimedRow = RunRow<string> & { seq: number };

/**
 * at most this many runs, and this many characters of their messages and actions: past either,
 * a run is not held. Not started again: under a backlog the runs held are the oldest, the next claimed
 */
const MAX_RUNS = 4096;
const MAX_CHARS = 8 * 1024 * 1024;

/**
 * The runs this process inserted queued and has not claimed yet, each as its row reads, by
 * rowid: a claim takes these from here and reads back only the others. A run's row changes
 * between its insert and its first claim only by writes that say so here (`forget`: a scrub of
 * credentials, a cancel) or by what MemoryFreshness sees (a rollback, another connection's
 * commit), and the claim itself writes only its status, its start and its lease, which it sets
 * on the row it takes. Governed runs (RunsRepo.admit) are not held: their admission and a later
 * coalescing write their rows after the insert. A run not held is read: holding is never needed.
 * For a group commit's works only (MemoryFreshness).
 */
export class UnclaimedRuns {
  private rows = new Map<number, ClaimedRow>();
  private chars = 0;
  private readonly freshness: MemoryFreshness;

  constructor(commits: GroupCommit) {
    this.freshness = new MemoryFreshness(commits);
  }

  /** a run just inserted queued, as its row reads */
  remember(row: ClaimedRow): void {
    this.dropIfStale();
    const chars = row.message.length + row.action.length;
    if (this.rows.size >= MAX_RUNS || this.chars + chars > MAX_CHARS) return;
    this.rows.set(row.seq, row);
    this.chars += chars;
  }

  /** the run's row as inserted, no longer held; undefined when it is not held */
  take(rowid: number): ClaimedRow | undefined {
    const row = this.rows.get(rowid);
    if (row === undefined) return undefined;
    this.rows.delete(rowid);
    this.chars -= row.message.length + row.action.length;
    return row;
  }

  /** checked once per claim, before its `take`s */
  dropIfStale(): void {
    if (this.freshness.moved()) this.forget();
  }

  /** runs' rows were written another way: every run is read at its claim */
  forget(): void {
    if (this.rows.size) this.rows.clear();
    this.chars = 0;
  }
}
