import type { GroupCommit } from './group-commit.js';

/**
 * Whether what this process holds in memory of the database may have gone stale since it last
 * asked: one database file has one serving process (serving-lock.ts), so only two things can
 * make it so:
 * - a rollback (an attempt of a group commit, or one work's savepoint) may have undone what a
 *   work did and kept in memory: `GroupCommit.rollbacks` moved;
 * - another connection (a second process on the file, a CLI command) committed: `PRAGMA
 *   data_version` moved, read at every attempt (`GroupCommit.othersCommits`). An attempt holds
 *   the write lock (BEGIN IMMEDIATE), so nothing else commits while it runs.
 * Asked inside a group commit's work, where those checks hold.
 */
export class MemoryFreshness {
  private seenVersion = -1;
  private seenRollbacks: number;

  constructor(private readonly commits: GroupCommit) {
    this.seenRollbacks = commits.rollbacks;
  }

  /** true when the memory is to be dropped; it counts as current from then on */
  moved(): boolean {
    let moved = false;
    if (this.seenRollbacks !== this.commits.rollbacks) {
      this.seenRollbacks = this.commits.rollbacks;
      moved = true;
    }
    // as the attempt running now read it, at its start
    const version = this.commits.othersCommits.inTransaction;
    if (version !== this.seenVersion) {
      this.seenVersion = version;
      moved = true;
    }
    return moved;
  }
}
