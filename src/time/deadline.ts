/**
 * An abort watched without an AbortSignal: a chat completion's model call listens to its time
 * limit through this, and the limit makes its AbortSignal (an EventTarget, whose making was the
 * largest of Node's own costs per completion) only for a reader that asks for one.
 */
export interface AbortWatch {
  readonly aborted: boolean;
  readonly reason: unknown;
  /** `listener` is called once, when it aborts (not when it had already: check `aborted` first, as with a signal) */
  watch(listener: () => void): void;
  unwatch(listener: () => void): void;
  /** the same abort as an AbortSignal, made on first read */
  readonly signal: AbortSignal;
}

/** what aborts a call: a signal, or a watch that makes none unless asked */
export type AbortSource = AbortSignal | AbortWatch;

/** `listener` called when `source` aborts; `unlisten` removes it */
export function listenForAbort(source: AbortSource, listener: () => void): void {
  if ('watch' in source) source.watch(listener);
  else source.addEventListener('abort', listener);
}

export function unlistenForAbort(source: AbortSource, listener: () => void): void {
  if ('watch' in source) source.unwatch(listener);
  else source.removeEventListener('abort', listener);
}

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
 * AbortController is made only when its signal is read: a watcher (the upstream exchange) needs none.
 */
class TimeLimit implements Deadline {
  private controller: AbortController | undefined = undefined;
  private readonly timer: NodeJS.Timeout;
  private parents: AbortSignal[] | undefined;
  private listeners: (() => void)[] | undefined = undefined;
  timedOut = false;
  aborted = false;
  reason: unknown = undefined;

  constructor(
    private readonly ms: number,
    parents: (AbortSignal | undefined)[],
  ) {
    this.timer = setTimeout(this.onTimeout, ms);
    for (const parent of parents) {
      if (!parent) continue;
      if (parent.aborted) {
        this.fire(parent.reason);
        this.clear();
        return;
      }
      parent.addEventListener('abort', this.onParentAbort);
      (this.parents ??= []).push(parent);
    }
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  watch(listener: () => void): void {
    (this.listeners ??= []).push(listener);
  }

  unwatch(listener: () => void): void {
    const at = this.listeners?.indexOf(listener) ?? -1;
    if (at >= 0) this.listeners!.splice(at, 1);
  }

  private fire(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners) for (const listener of listeners) listener();
  }

  private readonly onTimeout = () => {
    this.timedOut = true;
    this.fire(new DOMException(`timed out after ${this.ms} ms`, 'TimeoutError'));
  };

  private readonly onParentAbort = (event: Event) => {
    this.fire((event.target as AbortSignal).reason);
    this.clear();
  };

  abort(reason: unknown): void {
    this.fire(reason);
    this.clear();
  }

  readonly clear = () => {
    clearTimeout(this.timer);
    const parents = this.parents;
    if (!parents) return;
    this.parents = undefined;
    for (const parent of parents) parent.removeEventListener('abort', this.onParentAbort);
  };
}

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
