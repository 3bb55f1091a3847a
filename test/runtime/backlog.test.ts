import { describe, expect, it } from 'vitest';
import { Backlog } from '../../src/runtime/backlog.js';

describe('run backlog', () => {
  it('gives items back oldest first, skipping those not accepted, across its compactions', () => {
    const backlog = new Backlog<number>();
    for (let i = 0; i < 5000; i++) backlog.push(i);
    expect(backlog.take((n) => n % 2 === 1)).toBe(1);
    const taken: number[] = [];
    for (let n = backlog.take(() => true); n !== undefined; n = backlog.take(() => true)) {
      taken.push(n);
      if (n === 3000) backlog.push(5000);
    }
    expect(taken).toEqual([0, ...Array.from({ length: 4999 }, (_, i) => i + 2)]);
    expect(backlog.length).toBe(0);
    expect(backlog.take(() => true)).toBeUndefined();
  });

  it('is empty after clear', () => {
    const backlog = new Backlog<string>();
    backlog.push('a');
    backlog.clear();
    expect(backlog.length).toBe(0);
    expect(backlog.take(() => true)).toBeUndefined();
  });
});
