/** what a pass may say back: `again`, there may be more to do at once (every free slot was filled) */
export type PassOutcome = void | 'again';

export interface WorkLoopOptions {
  /** one pass: claims what is due and does it; `signal` is aborted when a stop's grace has run out */
  pass: (signal: AbortSignal) => Promise<PassOutcome>;
  /** a pass that threw: its owner says so; the loop goes on at the next wake-up or poll */
  failed: (error: unknown) => void;
  /** look again this often without a wake-up: the store may hold work nobody signalled (another replica's, an expired lease) */
  pollMs?: number;
  /** a wake-up waits this long before its pass starts, and the wake-ups meanwhile join that pass (a burst costs one) */
  gatherMs?: number;
  /** at least this long between the starts of two passes: a wake-up sooner waits for the gap's end (a burst costs one at its start, one at its end) */
  gapMs?: number;
}

/**
 * The loop every worker of the runtime runs on: one pass at a time; a wake-up during a pass is
 * remembered and runs one more pass after it (a burst of wake-ups costs one or two passes, and
 * none is lost); a poll interval for what no signal told of; a burst gathered into one pass
 * (`gatherMs`) or passes spaced (`gapMs`); a stop that lets the pass under way
 * finish within a grace period, then aborts it. A worker says only what is its own: the pass.
 */
export class WorkLoop {
  private running?: Promise<void>;
  private again = false;
  private accepting = false;
  private poll?: NodeJS.Timeout;
  /** a pass asked for and held back by `gatherMs` or `gapMs`: the wake-ups meanwhile join it */
  private held?: { timer: NodeJS.Timeout; release: () => void; released: Promise<void> };
  private lastStart = -Infinity;
  private readonly stopping = new AbortController();

  constructor(private readonly options: WorkLoopOptions) {}

  /** false before start and after stop: a wake-up runs nothing */
  get started(): boolean {
    return this.accepting;
  }

  /** accepts wake-ups and starts polling; `wake`: a first pass at once */
  start({ wake = true }: { wake?: boolean } = {}): void {
    this.accepting = true;
    if (this.options.pollMs) {
      this.poll = setInterval(() => this.wake(), this.options.pollMs);
      this.poll.unref();
    }
    if (wake) this.wake();
  }

  /**
   * asks for a pass: now, or right after the one under way; cheap to call often. `gap: false`: this
   * wake-up is not held back by `gapMs` (a timer of the owner's own, not a burst of changes)
   */
  wake(options?: { gap?: boolean }): void {
    if (!this.accepting) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.held) return;
    // no default object: the change feed wakes its loops for every write
    const wait = this.waitBeforePass(options?.gap ?? true);
    if (wait <= 0) {
      this.running = this.passes();
      return;
    }
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const timer = setTimeout(() => {
      this.held = undefined;
      this.running = this.passes();
      release();
    }, wait);
    timer.unref();
    this.held = { timer, release, released };
  }

  private waitBeforePass(gap = true): number {
    const { gatherMs = 0, gapMs = 0 } = this.options;
    return Math.max(gatherMs, gap ? this.lastStart + gapMs - Date.now() : 0);
  }

  private async passes(): Promise<void> {
    try {
      do {
        this.again = false;
        this.lastStart = Date.now();
        if ((await this.options.pass(this.stopping.signal)) === 'again') this.again = true;
        // a pass to be held back is asked for by a wake-up below instead
      } while (this.again && this.accepting && this.waitBeforePass() <= 0);
    } catch (error) {
      this.options.failed(error);
    } finally {
      this.running = undefined;
    }
    // a wake-up that came while the failed pass ran is not lost
    if (this.again && this.accepting) {
      this.again = false;
      this.wake();
    }
  }

  /** the passes under way, if any */
  get inFlight(): Promise<void> | undefined {
    return this.running;
  }

  /** resolves once the passes asked for so far are done (a held one included) */
  async settled(): Promise<void> {
    while (this.running || this.held) await (this.running ?? this.held!.released);
  }

  /**
   * Stops: no wake-up or poll runs a pass any more. The pass under way may finish within
   * `graceMs` (all the time it needs when none is given); then its signal is aborted, and this
   * resolves once it has returned.
   */
  async stop(graceMs?: number): Promise<void> {
    this.accepting = false;
    clearInterval(this.poll);
    if (this.held) {
      clearTimeout(this.held.timer);
      this.held.release();
      this.held = undefined;
    }
    const running = this.running;
    if (running && graceMs !== undefined) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([running, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
      clearTimeout(timer);
      this.stopping.abort(new Error('shutting down'));
    }
    await this.settled();
  }
}
