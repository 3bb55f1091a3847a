import { describe, expect, it } from 'vitest';
import { uuidV7 } from '../../src/time/uuid-v7.js';

const SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('uuidV7', () => {
  it('is a version 7 UUID whose first 48 bits are the time in milliseconds', () => {
    const id = uuidV7(0x0123456789ab);
    expect(id).toMatch(SHAPE);
    expect(id.slice(0, 13)).toBe('01234567-89ab');
  });

  it('sorts the ids of one millisecond in the order they were made, and those of later milliseconds after', () => {
    const made = [...Array.from({ length: 2000 }, () => uuidV7(1_750_000_000_000)), ...Array.from({ length: 3 }, () => uuidV7(1_750_000_000_001))];
    expect(new Set(made).size).toBe(made.length);
    for (const id of made) expect(id).toMatch(SHAPE);
    expect([...made].sort()).toEqual(made);
  });

  it("keeps each millisecond's order when ids for another millisecond are made between them (a receipt's at its request's time)", () => {
    const received = 1_760_000_000_000;
    const now = received + 3;
    const runs: string[] = [];
    const receipts: string[] = [];
    for (let i = 0; i < 500; i++) {
      runs.push(uuidV7(now));
      // ids for other milliseconds, as many as a slow request's latency spans
      for (let ms = 1; ms <= 50; ms++) uuidV7(now + ms);
      receipts.push(uuidV7(received));
    }
    expect([...runs].sort()).toEqual(runs);
    expect([...receipts].sort()).toEqual(receipts);
    expect(new Set([...runs, ...receipts]).size).toBe(1000);
  });
});
