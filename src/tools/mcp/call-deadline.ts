/**
 * One call's time limits, kept by herald rather than the SDK so that a question to a person can
 * hold them: the idle limit restarts with each progress notification and is held while a
 * question waits (a person's answer has its own limit); the total limit holds regardless. Past
 * either, `signal` aborts with the error made for it, and the SDK cancels the request at the
 * server (notifications/cancelled).
 */
export class CallDeadline {
  private readonly controller = new AbortController();
  private idle?: NodeJS.Timeout;
  private readonly total: NodeJS.Timeout;
  private held = 0;

  constructor(
    private readonly idleMs: number,
    totalMs: number,
    private readonly errors: { idle: () => Error; total: () => Error },
  ) {
    this.total = setTimeout(() => this.controller.abort(errors.total()), totalMs);
    this.arm();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** the server showed progress: the idle limit starts again */
  touch(): void {
    if (!this.held) this.arm();
  }

  /** a question waits: the idle limit is held until `release` */
  hold(): void {
    this.held++;
    clearTimeout(this.idle);
  }

  release(): void {
    if (this.held > 0 && --this.held === 0) this.arm();
  }

  dispose(): void {
    clearTimeout(this.idle);
    clearTimeout(this.total);
  }

  private arm(): void {
    clearTimeout(this.idle);
    if (this.controller.signal.aborted) return;
    this.idle = setTimeout(() => this.controller.abort(this.errors.idle()), this.idleMs);
  }
}
