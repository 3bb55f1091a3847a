import { describe, expect, it } from 'vitest';
import { firstIdAt, unkeyedAt } from '../../../src/store/sqlite/time-keyed-rows.js';
import { uuidV7 } from '../../../src/time/uuid-v7.js';

// which rows SQLite lists by their primary key (src/store/sqlite/time-keyed-rows.ts)
describe('a row keyed by its time', () => {
  it("is one whose id is a UUID v7 of its own millisecond, as herald makes a run's and a receipt's", () => {
    const t = 1_796_060_614_982;
    expect(unkeyedAt(uuidV7(t), t)).toBeNull();
    expect(unkeyedAt(`${firstIdAt(0)}-anything`, 0)).toBeNull();
    expect(unkeyedAt(firstIdAt(2 ** 48 - 1), 2 ** 48 - 1)).toBeNull();
  });

  it('is not one whose id names another millisecond, is no such id, or is in capitals (its text order would not be its time order)', () => {
    const t = 1_796_060_614_982;
    expect(unkeyedAt(uuidV7(t), t + 1)).toBe(t + 1);
    expect(unkeyedAt('legacy-1', 5)).toBe(5);
    expect(unkeyedAt(uuidV7(t).toUpperCase(), t)).toBe(t);
    expect(unkeyedAt(firstIdAt(t).replace('-', '_'), t)).toBe(t);
    expect(unkeyedAt(firstIdAt(t).slice(0, 12), t)).toBe(t);
  });

  it('sorts by its time: the least id of a millisecond is above every id of the one before', () => {
    const t = 1_796_060_614_982;
    expect(uuidV7(t) < firstIdAt(t + 1)).toBe(true);
    expect(uuidV7(t) >= firstIdAt(t)).toBe(true);
  });
});
