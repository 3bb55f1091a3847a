/** A term's chunks (rowids, ascending) and what the term weighs. */
export interface WeightedRowids {
  rowids: ArrayLike<number>;
  weight: number;
}

/**
 * The `limit` rowids holding the most weight (the sum of the weights of the lists holding each),
 * heaviest first, the larger (newer) rowid first among equal sums. The lists are merged from their
 * ends, newest first, keeping only the best `limit` seen: no map of every rowid, and no sort of
 * them (a question's terms hold up to thousands of chunks, and this runs for every question).
 * A rowid's weights are added in the order of the lists, so equal sets of terms give equal sums.
 */
export function heaviestRowids(lists: WeightedRowids[], limit: number): number[] {
  const at = lists.map((l) => l.rowids.length - 1);
  // the best so far, heaviest first; a later (older) rowid displaces one only by weighing more
  const best: { rowid: number; weight: number }[] = [];
  for (;;) {
    let rowid = -Infinity;
    for (let i = 0; i < lists.length; i++) if (at[i]! >= 0 && lists[i]!.rowids[at[i]!]! > rowid) rowid = lists[i]!.rowids[at[i]!]!;
    if (rowid === -Infinity) break;
    let weight = 0;
    for (let i = 0; i < lists.length; i++) {
      if (at[i]! >= 0 && lists[i]!.rowids[at[i]!] === rowid) {
        weight += lists[i]!.weight;
        at[i]!--;
      }
    }
    if (best.length === limit && (limit === 0 || weight <= best[limit - 1]!.weight)) continue;
    let place = best.length;
    while (place > 0 && best[place - 1]!.weight < weight) place--;
    best.splice(place, 0, { rowid, weight });
    if (best.length > limit) best.pop();
  }
  return best.map((b) => b.rowid);
}
