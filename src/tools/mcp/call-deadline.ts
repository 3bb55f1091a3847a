/**
 * One call's time limits, kept by herald rather than the SDK so that a question to a person can
 * hold them: the idle limit restarts with each progress notification and is held while a
 * question waits (a person's answer has its own limit); the total limit holds regardless. Past
 * either, `signal` aborts with the error made for it, and the SDK cancels the request at the
 * server (notifications/cancelled).
 */
export class CallDeadline {
  private readonly controller = new AbortController();
  /** one timer for both limits, set for whichever comes first: a call's limits cost one timer, not two */
  private timer?: NodeJS.Timeout;
  private readonly totalAt: number;
  private held = 0;
  private readonly unfollow?: () => void;

  /** `outer` (the turn's signal) aborting aborts the call too, with its reason, as `AbortSignal.any` would at a tenth of the cost */
  constructor(
    private readonly idleMs: number,
    totalMs: number,
    private readonly errors: { idle: () => Error; total: () => Error },
    outer?: AbortSignal,
  ) {
    this.totalAt = Date.now() + totalMs;
    this.arm();
    if (outer?.aborted) this.controller.abort(outer.reason);
    else if (outer) this.unfollow = follow(outer, (reason) => this.controller.abort(reason));
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
    this.arm();
  }

  release(): void {
    if (this.held > 0 && --this.held === 0) this.arm();
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.unfollow?.();
  }

  /** the timer set for the nearer limit: the idle one from now (none while held), or the total one */
  private arm(): void {
    clearTimeout(this.timer);
    if (this.controller.signal.aborted) return;
    const now = Date.now();
    // the total limit wins a tie, as its timer, set first, did when each limit had its own
    if (this.held || now + this.idleMs >= this.totalAt) this.timer = setTimeout(abortWith, this.totalAt - now, this.controller, this.errors.total);
    else this.timer = setTimeout(abortWith, this.idleMs, this.controller, this.errors.idle);
  }
}

function abortWith(controller: AbortController, error: () => Error): void {
  controller.abort(error());
}

/** the calls following each outer signal: one 'abort' listener per signal however many calls a turn makes at once (EventTarget warns past ten) */
const followers = new WeakMap<AbortSignal, Set<(reason: unknown) => void>>();

function follow(outer: AbortSignal, onAbort: (reason: unknown) => void): () => void {
  let calls = followers.get(outer);
  if (!calls) {
    const these = (calls = new Set());
    followers.set(outer, these);
    const abortEach = () => {
      for (const call of [...these]) call(outer.reason);
    };
    outer.addEventListener('abort', abortEach, { once: true });
  }
  calls.add(onAbort);
  return () => calls.delete(onAbort);
}
