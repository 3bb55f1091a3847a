import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startPings, stopPings } from '../../../src/http/exchange/stream-pings.js';

describe('stream pings', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('pings every open stream once a period with one timer, and stops it once none is left', () => {
    const a = vi.fn();
    const b = vi.fn();
    let pingA = startPings(1000, a);
    vi.advanceTimersByTime(400);
    const pingB = startPings(1000, b);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(600);
    // b's first ping comes within a period of its start
    expect([a.mock.calls.length, b.mock.calls.length]).toEqual([1, 1]);
    vi.advanceTimersByTime(1000);
    expect([a.mock.calls.length, b.mock.calls.length]).toEqual([2, 2]);
    stopPings(pingA);
    // stopped twice: nothing else is freed
    stopPings(pingA);
    vi.advanceTimersByTime(1000);
    expect([a.mock.calls.length, b.mock.calls.length]).toEqual([2, 3]);
    stopPings(pingB);
    vi.advanceTimersByTime(1000);
    expect(vi.getTimerCount()).toBe(0);
    // a stream after that starts the timer again
    pingA = startPings(1000, a);
    vi.advanceTimersByTime(1000);
    expect(a).toHaveBeenCalledTimes(3);
    stopPings(pingA);
  });

  it('keeps one timer per period', () => {
    const a = vi.fn();
    const b = vi.fn();
    const pingA = startPings(100, a);
    const pingB = startPings(300, b);
    vi.advanceTimersByTime(300);
    expect([a.mock.calls.length, b.mock.calls.length]).toEqual([3, 1]);
    stopPings(pingA);
    stopPings(pingB);
  });

  it('pings the streams left open when one in the middle stops, and one that stops while pinged', () => {
    const calls: string[] = [];
    const slots = ['a', 'b', 'c', 'd'].map((name) => startPings(500, () => calls.push(name)));
    stopPings(slots[1]!);
    // e stops on its own ping (a stream that ends in its ping's write): the others still get theirs
    const e = startPings(500, () => {
      calls.push('e');
      stopPings(e);
    });
    vi.advanceTimersByTime(500);
    expect(calls.sort()).toEqual(['a', 'c', 'd', 'e']);
    calls.length = 0;
    vi.advanceTimersByTime(500);
    expect(calls.sort()).toEqual(['a', 'c', 'd']);
    for (const slot of slots) stopPings(slot);
    vi.advanceTimersByTime(1000);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("does not ping a stream that another stream's ping stopped earlier in the same tick", () => {
    const calls: string[] = [];
    let b: ReturnType<typeof startPings> | undefined;
    const a = startPings(500, () => {
      calls.push('a');
      if (b) stopPings(b);
    });
    b = startPings(500, () => calls.push('b'));
    const c = startPings(500, () => calls.push('c'));
    vi.advanceTimersByTime(500);
    expect(calls).toEqual(['a', 'c']);
    stopPings(a);
    stopPings(c);
  });
});
