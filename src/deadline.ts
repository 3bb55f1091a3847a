/** A signal that aborts after `ms` or when any parent aborts, whichever comes first. */
export interface Deadline {
  signal: AbortSignal;
  /** true when the time limit (not a parent) aborted it */
  readonly timedOut: boolean;
  /** stops the timer and lets go of the parents; call it when the work is done */
  clear(): void;
}

/**
 * Why not `AbortSignal.any([parent, AbortSignal.timeout(ms)])`: on Node 20 the combined signal
 * holds its sources weakly and `AbortSignal.timeout` keeps no strong reference to itself, so a
 * garbage collection during a hung request collects the timeout signal and it never fires
 * (the request then hangs forever). Here the timer is an ordinary `setTimeout`, which the event
 * loop holds, and its callback holds the controller: nothing that must fire can be collected.
 * Each parent holds a listener (and through it the controller) until `clear()`.
 */
export function deadline(ms: number, ...parents: (AbortSignal | undefined)[]): Deadline {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException(`timed out after ${ms} ms`, 'TimeoutError'));
  }, ms);
  const listening: { parent: AbortSignal; onAbort: () => void }[] = [];
  const clear = () => {
    clearTimeout(timer);
    for (const { parent, onAbort } of listening.splice(0)) parent.removeEventListener('abort', onAbort);
  };
  for (const parent of parents) {
    if (!parent) continue;
    if (parent.aborted) {
      controller.abort(parent.reason);
      break;
    }
    const onAbort = () => {
      controller.abort(parent.reason);
      clear();
    };
    parent.addEventListener('abort', onAbort, { once: true });
    listening.push({ parent, onAbort });
  }
  if (controller.signal.aborted) clear();
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    clear,
  };
}

/** runs `work` under a fresh deadline and always clears it afterwards */
export async function withDeadline<T>(ms: number, parent: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const limit = deadline(ms, parent);
  try {
    return await work(limit.signal);
  } finally {
    limit.clear();
  }
}
