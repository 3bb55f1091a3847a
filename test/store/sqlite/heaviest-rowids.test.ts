import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { heaviestRowids, type WeightedRowids } from '../../../src/store/sqlite/heaviest-rowids.js';

/** the rule stated plainly: every rowid's summed weight (added in the order of the lists), heaviest first, newest first among equals */
function naive(lists: WeightedRowids[], limit: number): number[] {
  const weights = new Map<number, number>();
  for (const { rowids, weight } of lists) for (const rowid of Array.from(rowids)) weights.set(rowid, (weights.get(rowid) ?? 0) + weight);
  return [...weights]
    .sort((a, b) => b[1] - a[1] || b[0] - a[0])
    .slice(0, limit)
    .map(([rowid]) => rowid);
}

// ascending distinct rowids, as a term's chunks come from the index; weights from a few values, so sums tie often
const list = fc.record({
  rowids: fc.uniqueArray(fc.integer({ min: 1, max: 60 }), { maxLength: 30 }).map((r) => Int32Array.from(r.sort((a, b) => a - b))),
  weight: fc.constantFrom(0.25, 0.5, 1, 1.7, Math.log(1 + 99.5 / 3.5)),
});

describe('heaviestRowids', () => {
  it('takes the same rowids, in the same order, as summing every rowid and sorting', () => {
    fc.assert(
      fc.property(fc.array(list, { maxLength: 6 }), fc.integer({ min: 0, max: 30 }), (lists, limit) => {
        expect(heaviestRowids(lists, limit)).toEqual(naive(lists, limit));
      }),
      { numRuns: 2000 },
    );
  });

  it('prefers the chunk holding more weight, then the newer one', () => {
    const lists = [
      { rowids: Int32Array.from([1, 2, 3]), weight: 1 },
      { rowids: Int32Array.from([2, 9]), weight: 3 },
    ];
    expect(heaviestRowids(lists, 10)).toEqual([2, 9, 3, 1]);
    expect(heaviestRowids(lists, 2)).toEqual([2, 9]);
    expect(heaviestRowids([], 4)).toEqual([]);
  });
});
