import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startPings, stopPings } from '../../../src/http/exchange/stream-pings.js';

describe('stream pings', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('pings every open stream once a period with one timer, and stops it once none is left', () => {
    const a = vi.fn();
    const b = vi.fn();
    startPings(1000, a);
    vi.advanceTimersByTime(400);
    startPings(1000, b);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(600);
    // b's first ping comes within a period of its start
    expect([a.mock.calls.length, b.mock.calls.length]).toEqual([1, 1]);
    vi.advanceTimersByTime(1000);
    expect([a.mock.calls.length, b.mock.calls.length]).toEqual([2, 2]);
    stopPings(1000, a);
    vi.advanceTimersByTime(1000);
    expect([a.mock.calls.length, b.mock.calls.length]).toEqual([2, 3]);
    stopPings(1000, b);
    vi.advanceTimersByTime(1000);
    expect(vi.getTimerCount()).toBe(0);
    // a stream after that starts the timer again
    startPings(1000, a);
    vi.advanceTimersByTime(1000);
    expect(a).toHaveBeenCalledTimes(3);
    stopPings(1000, a);
  });

  it('keeps one timer per period', () => {
    const a = vi.fn();
    const b = vi.fn();
    startPings(100, a);
    startPings(300, b);
    vi.advanceTimersByTime(300);
    expect([a.mock.calls.length, b.mock.calls.length]).toEqual([3, 1]);
    stopPings(100, a);
    stopPings(300, b);
  });
});
