/**
 * The ingests under way in this process, by knowledge owner (an agent, or a vector store) and
 * content hash: the key a document is one by. A document is hidden until its last chunk is
 * stored, so a second upload of the same bytes would not find it and parse them again; here it
 * waits for the first one instead, then finds the document whole. Held in memory only: nothing
 * a stopped process left behind makes anyone wait.
 */
export class IngestsInFlight {
  private readonly running = new Map<string, Promise<unknown>>();

  /**
   * Runs `work` as the only ingest of these bytes for this owner in this process: one under way
   * is waited for first (`onWait` says so), and its failure is its own, not this one's (the work
   * then reads and stores the bytes itself).
   */
  async alone<T>(owner: string, sha256: string, work: () => Promise<T>, onWait?: () => void): Promise<T> {
    const key = `${owner}\u0000${sha256}`;
    for (let ahead = this.running.get(key); ahead; ahead = this.running.get(key)) {
      onWait?.();
      await ahead.catch(() => undefined);
    }
    // set before anything else runs: several waiters woken at once, the first takes the key, the others wait for it
    const mine = work();
    this.running.set(key, mine);
    try {
      return await mine;
    } finally {
      if (this.running.get(key) === mine) this.running.delete(key);
    }
  }
}
