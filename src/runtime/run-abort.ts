/**
 * What stops a run (its time limit, a shutdown, a lost lease), with the reason given. Its
 * AbortSignal is made only when something asks for it (a model over the network): making one is
 * slow on Node 20 (`Object.setPrototypeOf` on a fresh EventTarget), and a run answered by the
 * embedded model never needs one.
 */
export class RunAbort {
  aborted = false;
  reason: unknown;
  private controller?: AbortController;
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
    const listeners = this.listeners;
    this.listeners = undefined;
    listeners?.forEach((listener) => listener());
  }

  /** calls `listener` once, on abort; returns what stops listening */
  onAbort(listener: () => void): () => void {
    (this.listeners ??= new Set()).add(listener);
    return () => this.listeners?.delete(listener);
  }
}
