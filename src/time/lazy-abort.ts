/**
 * An abort watched without an AbortSignal: a chat completion's model call listens to its time
 * limit through this, a run's steps to what stops the run. Making an AbortSignal is slow on
 * Node 20 (an EventTarget, `Object.setPrototypeOf` on it): it is made only for a reader that
 * asks for one (a fetch, an MCP call).
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

/** `listener` called when `source` aborts; `unlistenForAbort` removes it */
export function listenForAbort(source: AbortSource, listener: () => void): void {
  if ('watch' in source) source.watch(listener);
  else source.addEventListener('abort', listener);
}

export function unlistenForAbort(source: AbortSource, listener: () => void): void {
  if ('watch' in source) source.unwatch(listener);
  else source.removeEventListener('abort', listener);
}

/**
 * An abort with its reason, its listeners called once, its AbortSignal made when read. The first
 * listener is held as it is, the others in a set: most aborts have one watcher (a chat
 * completion's model call), and a set is an allocation per completion.
 */
export class LazyAbort implements AbortWatch {
  aborted = false;
  reason: unknown = undefined;
  private controller?: AbortController;
  private listener?: () => void;
  private listeners?: Set<() => void>;

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
    const { listener, listeners } = this;
    this.listener = this.listeners = undefined;
    listener?.();
    listeners?.forEach((more) => more());
  }

  watch(listener: () => void): void {
    if (listener === this.listener) return;
    if (this.listener === undefined && !this.listeners?.has(listener)) this.listener = listener;
    else (this.listeners ??= new Set()).add(listener);
  }

  unwatch(listener: () => void): void {
    if (listener === this.listener) this.listener = undefined;
    else this.listeners?.delete(listener);
  }

  /** calls `listener` once, on abort; returns what stops listening */
  onAbort(listener: () => void): () => void {
    this.watch(listener);
    return () => this.unwatch(listener);
  }
}
