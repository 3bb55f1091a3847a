import { LazyAbort, type AbortWatch } from './lazy-abort.js';

/** A limit that aborts after `ms` or when any parent aborts, whichever comes first. */
export interface Deadline extends AbortWatch {
  /** true when the time limit (not a parent) aborted it */
  readonly timedOut: boolean;
  /** stops the timer and lets go of the parents; call it when the work is done */
  clear(): void;
  /** aborts now (the caller's own reason to stop, e.g. its client went away: no parent signal needed) */
  abort(reason: unknown): void;
}

/**
 * Why not `AbortSignal.any([parent, AbortSignal.timeout(ms)])`: on Node 20 the combined signal
 * holds its sources weakly and `AbortSignal.timeout` keeps no strong reference to itself, so a
 * garbage collection during a hung request collects the timeout signal and it never fires
 * (the request then hangs forever). Here the timer is an ordinary `setTimeout`, which the event
 * loop holds, and its callback holds the limit: nothing that must fire can be collected.
 * Each parent holds a listener (and through it the limit) until `clear()`.
 *
 * A class rather than closures: every chat completion makes one, and this shape costs about
 * half (no getter object, no array for the usual single parent, no `once` option to parse). Its
 * methods are its prototype's, the timer's callback one function for every limit (the limit is
 * its argument), and a parent's listener is made only for a parent: a closure made per limit
 * is an allocation, and a first call through V8's lazy compile, per completion. Its
 * AbortController is made only when its signal is read: a watcher (the upstream exchange) needs none.
 */
class TimeLimit extends LazyAbort implements Deadline {
  private readonly timer: NodeJS.Timeout;
  private parents: AbortSignal[] | undefined;
  private onParentAbort: ((event: Event) => void) | undefined;
  timedOut = false;

  constructor(
    private readonly ms: number,
    parents: (AbortSignal | undefined)[],
  ) {
    super();
    this.timer = setTimeout(timeOut, ms, this);
    for (const parent of parents) {
      if (!parent) continue;
      if (parent.aborted) {
        this.abort(parent.reason);
        return;
      }
      parent.addEventListener('abort', (this.onParentAbort ??= (event: Event) => this.abort((event.target as AbortSignal).reason)));
      (this.parents ??= []).push(parent);
    }
  }

  /** the time is up (the timer's callback, `timeOut`) */
  expire(): void {
    this.timedOut = true;
    this.abort(new DOMException(`timed out after ${this.ms} ms`, 'TimeoutError'));
  }

  override abort(reason: unknown): void {
    super.abort(reason);
    this.clear();
  }

  clear(): void {
    clearTimeout(this.timer);
    const parents = this.parents;
    if (!parents) return;
    this.parents = undefined;
    for (const parent of parents) parent.removeEventListener('abort', this.onParentAbort!);
  }
}

const timeOut = (limit: TimeLimit) => limit.expire();

export function deadline(ms: number, ...parents: (AbortSignal | undefined)[]): Deadline {
  return new TimeLimit(ms, parents);
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
