import { describe, expect, it } from 'vitest';
import { randomHex, timeOrderedHex } from '../../src/utils/random-hex.js';

describe('ids', () => {
  it('random ids: the asked number of bytes as hex, never the same twice across pool refills', () => {
    const ids = Array.from({ length: 2000 }, () => randomHex(12));
    expect(ids.every((id) => /^[0-9a-f]{24}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('time-ordered ids (conversations, responses) sort by when they were made and still differ within one millisecond', () => {
    const earlier = timeOrderedHex(12, Date.UTC(2026, 10, 23, 10, 0, 0));
    const later = timeOrderedHex(12, Date.UTC(2026, 10, 23, 10, 0, 1));
    expect(earlier < later).toBe(true);
    expect(earlier).toMatch(/^[0-9a-f]{24}$/);
    const sameMs = Array.from({ length: 1000 }, () => timeOrderedHex(12, 1_700_000_000_000));
    expect(new Set(sameMs).size).toBe(1000);
    expect(new Set(sameMs.map((id) => id.slice(0, 12))).size).toBe(1);
  });
});
