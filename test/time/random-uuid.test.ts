import { describe, expect, it } from 'vitest';
import { randomUuid } from '../../src/time/random-uuid.js';

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('randomUuid', () => {
  it('makes UUID v4 text as crypto.randomUUID does, different each time, across refills of its pool', () => {
    const ids = Array.from({ length: 1000 }, () => randomUuid());
    for (const id of ids) expect(id).toMatch(V4);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('sets only the version and variant bits: every other hex digit takes all its values', () => {
    const seen = Array.from({ length: 36 }, () => new Set<string>());
    for (let n = 0; n < 2000; n++) [...randomUuid()].forEach((ch, i) => seen[i]!.add(ch));
    seen.forEach((chars, i) => {
      if ([8, 13, 18, 23].includes(i)) expect([...chars]).toEqual(['-']);
      else if (i === 14) expect([...chars]).toEqual(['4']);
      else if (i === 19) expect([...chars].sort()).toEqual(['8', '9', 'a', 'b']);
      else expect(chars.size).toBe(16);
    });
  });
});
