import { describe, expect, it, vi } from 'vitest';
import { deadline } from '../../src/time/deadline.js';
import { LazyAbort } from '../../src/time/lazy-abort.js';

describe('a lazy abort', () => {
  it('calls each listener once, the first and the others alike, and none that stopped watching', () => {
    const abort = new LazyAbort();
    const [a, b, c, d] = [vi.fn(), vi.fn(), vi.fn(), vi.fn()];
    abort.watch(a);
    abort.watch(a);
    abort.watch(b);
    abort.watch(b);
    abort.watch(c);
    abort.unwatch(a);
    abort.watch(d);
    abort.watch(b);
    abort.unwatch(c);
    abort.abort('why');
    abort.abort('again');
    expect([a, b, c, d].map((f) => f.mock.calls.length)).toEqual([0, 1, 0, 1]);
    expect(abort.reason).toBe('why');
    expect(abort.signal.aborted).toBe(true);
  });
});

describe('a deadline', () => {
  it('aborts when its time is up, as a timeout, and tells its watcher', async () => {
    const limit = deadline(5);
    const watcher = vi.fn();
    limit.watch(watcher);
    await vi.waitFor(() => expect(limit.aborted).toBe(true));
    expect(limit.timedOut).toBe(true);
    expect((limit.reason as DOMException).name).toBe('TimeoutError');
    expect(watcher).toHaveBeenCalledTimes(1);
  });

  it('aborts with its parent, not as a timeout, and lets go of the parent once cleared', async () => {
    const parent = new AbortController();
    const limit = deadline(60_000, undefined, parent.signal);
    parent.abort('gone');
    expect([limit.aborted, limit.timedOut, limit.reason]).toEqual([true, false, 'gone']);

    const other = new AbortController();
    const cleared = deadline(5, other.signal);
    cleared.clear();
    other.abort('later');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(cleared.aborted).toBe(false);
  });
});
