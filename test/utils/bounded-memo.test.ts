import { describe, expect, it } from 'vitest';
import { BoundedMemo } from '../../src/utils/bounded-memo.js';

/** a memo whose `make` counts its calls: a key made again was forgotten */
function counted(memo: BoundedMemo<string, number>) {
  const made: string[] = [];
  const get = (key: string) => memo.get(key, (k) => (made.push(k), k.length));
  return { made, get };
}

describe('BoundedMemo', () => {
  it('makes a key once, and forgets every key at once past its count of keys', () => {
    const { made, get } = counted(new BoundedMemo(2));
    for (const key of ['a', 'b', 'a', 'b']) get(key);
    expect(made).toEqual(['a', 'b']);
    get('c');
    for (const key of ['c', 'a']) expect(get(key)).toBe(1);
    expect(made).toEqual(['a', 'b', 'c', 'a']);
  });

  it('with `weigh`, forgets past their weight, and keeps no key heavier than the whole bound', () => {
    const { made, get } = counted(new BoundedMemo(10, (key) => key.length));
    for (const key of ['aaaa', 'bbbb', 'aaaa', 'bbbb']) get(key);
    expect(made).toEqual(['aaaa', 'bbbb']);
    // 8 held, 4 more is past 10: all forgotten, then this one kept
    get('cccc');
    get('cccc');
    get('aaaa');
    expect(made).toEqual(['aaaa', 'bbbb', 'cccc', 'aaaa']);
    // heavier than 10: made each time, and what is held stays
    expect(get('x'.repeat(11))).toBe(11);
    expect(get('x'.repeat(11))).toBe(11);
    get('cccc');
    expect(made).toEqual(['aaaa', 'bbbb', 'cccc', 'aaaa', 'x'.repeat(11), 'x'.repeat(11)]);
  });
});
