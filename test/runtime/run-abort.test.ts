import { describe, expect, it } from 'vitest';
import { RunAbort } from '../../src/runtime/run-abort.js';

describe('RunAbort', () => {
  it('keeps the first reason, and hands its signal out already aborted when asked for it after the abort', () => {
    const abort = new RunAbort();
    expect(abort.aborted).toBe(false);
    const reason = new Error('run timed out');
    abort.abort(reason);
    abort.abort(new Error('shutting down'));
    expect(abort.aborted).toBe(true);
    expect(abort.reason).toBe(reason);
    expect(abort.signal.aborted).toBe(true);
    expect(abort.signal.reason).toBe(reason);
  });

  it('aborts a signal handed out before the abort, with the reason given', () => {
    const abort = new RunAbort();
    const signal = abort.signal;
    expect(abort.signal).toBe(signal);
    const seen: unknown[] = [];
    signal.addEventListener('abort', () => seen.push(signal.reason));
    abort.abort('lease lost');
    expect(seen).toEqual(['lease lost']);
  });

  it('calls each listener once on abort, none that stopped listening', () => {
    const abort = new RunAbort();
    const calls: string[] = [];
    abort.onAbort(() => calls.push('a'));
    const stop = abort.onAbort(() => calls.push('b'));
    stop();
    abort.abort('x');
    abort.abort('y');
    expect(calls).toEqual(['a']);
  });
});
