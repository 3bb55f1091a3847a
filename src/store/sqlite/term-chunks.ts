/**
 * What the search keeps of one term of one agent's index: every chunk holding it (rowids,
 * ascending) when it is held by no more than the count limit, else only that it is frequent and
 * its first and last FREQUENT_TERM_SAMPLE chunks (all a search reads of a frequent term).
 */
export type TermChunks = { frequent: false; rowids: Int32Array | Float64Array } | { frequent: true; first: Int32Array | Float64Array; last: Int32Array | Float64Array };

/** rowids in 4 bytes each while they fit (they always do but for a table with over 2^31 rows ever); a plain loop, as `from` and `every` cost more than the read */
export function compactRowids(rowids: number[]): Int32Array | Float64Array {
  const compact = new Int32Array(rowids.length);
  for (let i = 0; i < rowids.length; i++) {
    if (rowids[i]! > 0x7fffffff) return Float64Array.from(rowids);
    compact[i] = rowids[i]!;
  }
  return compact;
}

const sizeOf = (t: TermChunks) => (t.frequent ? t.first.length + t.last.length : t.rowids.length) + 8;

/**
 * Terms' chunks by agent and term, the least recently used dropped past `budget` rowids (~4 bytes
 * each): as typed arrays, 100,000 chunks' worth of terms fit in a few MB, where arrays of numbers
 * would take tens of times more. Cleared on every write to the knowledge base.
 */
export class TermChunksCache {
  private readonly held = new Map<string, TermChunks>();
  private size = 0;

  constructor(private readonly budget = 2_000_000) {}

  get(agentId: string, term: string, read: () => TermChunks): TermChunks {
    const key = `${agentId}\u0000${term}`;
    let chunks = this.held.get(key);
    if (chunks) {
      // the newest last: Map keeps insertion order, so the first key is the least recently used
      this.held.delete(key);
      this.held.set(key, chunks);
      return chunks;
    }
    chunks = read();
    this.held.set(key, chunks);
    this.size += sizeOf(chunks);
    for (const [oldest, dropped] of this.held) {
      if (this.size <= this.budget) break;
      this.held.delete(oldest);
      this.size -= sizeOf(dropped);
    }
    return chunks;
  }

  clear(): void {
    this.held.clear();
    this.size = 0;
  }
}
