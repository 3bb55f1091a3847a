import { describe, expect, it } from 'vitest';
import { WorkLoop, type PassOutcome } from '../../../src/runtime/work/work-loop.js';

/** a promise with its resolve in hand */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** a loop whose passes are recorded, each held until the test lets it go */
function heldLoop(outcomes: PassOutcome[] = []) {
  const passes: Array<{ signal: AbortSignal; finish: () => void }> = [];
  const failures: unknown[] = [];
  const waiting: Array<() => void> = [];
  const loop = new WorkLoop({
    pass: (signal) => {
      const done = deferred();
      passes.push({ signal, finish: done.resolve });
      for (const resolve of waiting.splice(0)) resolve();
      const outcome = outcomes.shift();
      return done.promise.then(() => outcome);
    },
    failed: (error) => failures.push(error),
  });
  /** resolves when the next pass starts */
  const nextStart = () => new Promise<void>((resolve) => waiting.push(resolve));
  return { loop, passes, failures, nextStart };
}

describe('the work loop', () => {
  it('runs one pass at a time; wake-ups during a pass run one more pass after it, not one each (no wake-up lost)', async () => {
    const { loop, passes, nextStart } = heldLoop();
    loop.start({ wake: false });
    let first = nextStart();
    loop.wake();
    await first;
    for (let i = 0; i < 5; i++) loop.wake();
    expect(passes).toHaveLength(1);
    first = nextStart();
    passes[0]!.finish();
    await first;
    expect(passes).toHaveLength(2);
    passes[1]!.finish();
    await loop.settled();
    expect(passes).toHaveLength(2);
    await loop.stop();
  });

  it("a pass that says 'again' is followed by another at once", async () => {
    const { loop, passes, nextStart } = heldLoop(['again', undefined]);
    const first = nextStart();
    loop.start();
    await first;
    const second = nextStart();
    passes[0]!.finish();
    await second;
    passes[1]!.finish();
    await loop.settled();
    expect(passes).toHaveLength(2);
    await loop.stop();
  });

  it('a pass that throws is reported; the loop goes on at the next wake-up, and a wake-up during it is kept', async () => {
    const failures: unknown[] = [];
    let calls = 0;
    const gate = deferred();
    const loop = new WorkLoop({
      pass: async () => {
        calls++;
        if (calls === 1) {
          await gate.promise;
          throw new Error('store away');
        }
      },
      failed: (error) => failures.push(error),
    });
    loop.start();
    loop.wake(); // during the failing pass
    gate.resolve();
    await loop.settled();
    expect(failures.map((e) => (e as Error).message)).toEqual(['store away']);
    expect(calls).toBe(2);
    loop.wake();
    await loop.settled();
    expect(calls).toBe(3);
    await loop.stop();
  });

  it('stop lets the pass under way finish and runs no other; wake-ups after it run nothing', async () => {
    const { loop, passes, nextStart } = heldLoop();
    const first = nextStart();
    loop.start();
    await first;
    loop.wake();
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false);
    expect(passes[0]!.signal.aborted).toBe(false);
    passes[0]!.finish();
    await stopping;
    loop.wake();
    await loop.settled();
    expect(passes).toHaveLength(1);
  });

  it("stop with a grace period aborts a pass still running when it has run out, and waits for it to return", async () => {
    const returned = deferred();
    let aborted = false;
    const loop = new WorkLoop({
      pass: (signal) =>
        new Promise<void>((resolve) =>
          signal.addEventListener('abort', () => {
            aborted = true;
            setImmediate(() => {
              returned.resolve();
              resolve();
            });
          }),
        ),
      failed: () => {},
    });
    loop.start();
    await loop.stop(0);
    expect(aborted).toBe(true);
    await returned.promise;
    expect(loop.inFlight).toBeUndefined();
  });

  it('polls: a pass at every interval without a wake-up, until stopped', async () => {
    let calls = 0;
    const third = deferred();
    const loop = new WorkLoop({
      pass: async () => {
        if (++calls === 3) third.resolve();
      },
      failed: () => {},
      pollMs: 5,
    });
    loop.start({ wake: false });
    await third.promise;
    await loop.stop();
    const after = calls;
    await new Promise((r) => setTimeout(r, 20));
    expect(calls).toBe(after);
  });

  it('gathers: the wake-ups within gatherMs of the first join one pass, and a wake-up after it waits its own gathering', async () => {
    let calls = 0;
    const loop = new WorkLoop({ pass: async () => void calls++, failed: () => {}, gatherMs: 20 });
    loop.start({ wake: false });
    for (let i = 0; i < 20; i++) loop.wake();
    expect(calls).toBe(0);
    await loop.settled();
    expect(calls).toBe(1);
    loop.wake();
    await loop.settled();
    expect(calls).toBe(2);
    await loop.stop();
  });

  it('spaces: a burst of wake-ups within gapMs costs a pass at its start and one at its end; a wake-up with gap: false is not held', async () => {
    let calls = 0;
    const loop = new WorkLoop({ pass: async () => void calls++, failed: () => {}, gapMs: 10_000 });
    loop.start({ wake: false });
    loop.wake();
    await loop.settled();
    expect(calls).toBe(1);
    for (let i = 0; i < 20; i++) loop.wake();
    // held for the gap's end, with every wake-up of the burst
    expect(calls).toBe(1);
    loop.wake({ gap: false });
    expect(calls).toBe(1);
    await loop.stop();
    expect(calls).toBe(1);
    const unspaced = new WorkLoop({ pass: async () => void calls++, failed: () => {}, gapMs: 10_000 });
    unspaced.start();
    await unspaced.settled();
    unspaced.wake({ gap: false });
    await unspaced.settled();
    expect(calls).toBe(3);
    await unspaced.stop();
  });

  it('stop drops a held pass: settled resolves at once and nothing runs after', async () => {
    let calls = 0;
    const loop = new WorkLoop({ pass: async () => void calls++, failed: () => {}, gatherMs: 10_000 });
    loop.start();
    await loop.stop();
    await loop.settled();
    expect(calls).toBe(0);
  });
});
