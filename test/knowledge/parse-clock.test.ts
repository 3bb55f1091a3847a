import { afterEach, describe, expect, it, vi } from 'vitest';
import { ParseClock } from '../../src/knowledge/parsing/parse-stream.js';

afterEach(() => vi.useRealTimers());

describe('ParseClock', () => {
  it('counts only the time its worker works: a pause (the store taking batches) is not spent', () => {
    vi.useFakeTimers();
    const expired = vi.fn();
    const clock = new ParseClock(1000, expired);
    clock.run();
    vi.advanceTimersByTime(600);
    clock.pause();
    vi.advanceTimersByTime(10_000);
    expect(expired).not.toHaveBeenCalled();
    clock.run();
    vi.advanceTimersByTime(399);
    expect(expired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(expired).toHaveBeenCalledOnce();
  });

  it('never expires once stopped', () => {
    vi.useFakeTimers();
    const expired = vi.fn();
    const clock = new ParseClock(100, expired);
    clock.run();
    clock.stop();
    clock.run();
    vi.advanceTimersByTime(1000);
    expect(expired).not.toHaveBeenCalled();
  });
});
