import { describe, expect, it } from 'vitest';
import { compactRowids, TermChunksCache, type TermChunks } from '../../../src/store/sqlite/term-chunks.js';

const rare = (...rowids: number[]): TermChunks => ({ frequent: false, rowids: compactRowids(rowids) });

describe('TermChunksCache', () => {
  it('reads a term once, and drops the least recently used past its budget', () => {
    // each term below counts 16 (8 rowids and 8 for its entry): two fit
    const cache = new TermChunksCache(40);
    let reads = 0;
    const get = (term: string) => cache.get('a', term, () => (reads++, rare(1, 2, 3, 4, 5, 6, 7, 8)));
    get('one');
    get('two');
    expect(reads).toBe(2);
    get('one'); // now the most recently used
    expect(reads).toBe(2);
    get('three'); // over the budget: "two" goes
    get('one');
    expect(reads).toBe(3);
    get('two');
    expect(reads).toBe(4);
    cache.clear();
    get('one');
    expect(reads).toBe(5);
  });

  it('keeps rowids in 4 bytes while they fit', () => {
    expect(compactRowids([1, 2 ** 31 - 1])).toBeInstanceOf(Int32Array);
    expect(Array.from(compactRowids([1, 2 ** 31]))).toEqual([1, 2 ** 31]);
  });
});
