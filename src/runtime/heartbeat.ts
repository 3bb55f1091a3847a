import type { Logger } from 'pino';

const MAX_TIMER_MS = 2_147_483_647;
/** after the lease holder's expiry, a little slack before asking again */
const BUSY_SLACK_MS = 50;

/** what a turn may say back: it did not run because another process holds the heartbeat until `busyUntil` */
export type TurnOutcome = void | { ran: boolean; busyUntil?: number };

/**
 * Schedules heartbeat turns: periodically, and at once on request. Requests within
 * `coalesceMs` of each other, and those that arrive while a turn runs, coalesce: a burst of
 * wakes costs one or two turns, not N. A turn another process holds the heartbeat for is asked
 * again when that holder's lease would run out (the holder itself runs again for wakes that came
 * during its turn; this retry covers a holder that died).
 */
export class Heartbeat {
  private timer?: NodeJS.Timeout;
  private scheduled?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private stopped = false;
  /** the pending turn was asked for by the timer only */
  private periodic = false;
  private busyRetry?: NodeJS.Timeout;
  /** aborted by stop(): a turn waiting on a model must not hold the shutdown up */
  private readonly stopping = new AbortController();

  constructor(
    private readonly everyMs: number,
    private readonly turn: (signal: AbortSignal, periodic?: { everyMs: number }) => Promise<TurnOutcome>,
    private readonly logger: Logger,
    private readonly coalesceMs = 0,
  ) {}

  start(): void {
    if (this.everyMs > 0) this.schedule(this.everyMs);
  }

  /** chained timeouts: a period past Node's timer limit (~24.8 days) would otherwise fire every 1 ms */
  private schedule(remainingMs: number): void {
    if (this.stopped) return;
    const step = Math.min(remainingMs, MAX_TIMER_MS);
    this.timer = setTimeout(() => {
      if (remainingMs > step) return this.schedule(remainingMs - step);
      this.request(true);
      this.schedule(this.everyMs);
    }, step);
    this.timer.unref();
  }

  /** asks for a heartbeat now; cheap to call often. `periodic`: the timer's own request */
  request(periodic = false): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.scheduled) {
      this.periodic &&= periodic;
      return;
    }
    this.periodic = periodic;
    this.scheduled = setTimeout(() => {
      this.scheduled = undefined;
      this.running = this.runTurn(this.periodic);
    }, this.coalesceMs);
  }

  private async runTurn(periodic: boolean): Promise<void> {
    try {
      const outcome = await this.turn(this.stopping.signal, periodic ? { everyMs: this.everyMs } : undefined);
      if (outcome && !outcome.ran && outcome.busyUntil !== undefined && !this.stopped) {
        if (this.busyRetry) clearTimeout(this.busyRetry);
        const wait = Math.min(Math.max(outcome.busyUntil - Date.now(), 0) + BUSY_SLACK_MS, MAX_TIMER_MS);
        this.busyRetry = setTimeout(() => this.request(periodic), wait);
        this.busyRetry.unref();
      }
    } catch (error) {
      if (this.stopping.signal.aborted) this.logger.info('heartbeat turn cut short by shutdown; its events stay pending');
      else this.logger.error({ err: error }, 'heartbeat turn failed');
    } finally {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.request();
      }
    }
  }

  /** resolves once nothing is running or scheduled (tests and shutdown) */
  async idle(): Promise<void> {
    while (this.running || this.scheduled) {
      await (this.running ?? new Promise((r) => setTimeout(r, Math.max(1, this.coalesceMs))));
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.busyRetry) clearTimeout(this.busyRetry);
    if (this.scheduled) clearTimeout(this.scheduled);
    this.scheduled = undefined;
    this.stopping.abort(new Error('shutting down'));
    await this.running;
  }
}
