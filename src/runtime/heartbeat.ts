import type { Logger } from 'pino';
import { WorkLoop } from './work/work-loop.js';

const MAX_TIMER_MS = 2_147_483_647;
/** after the lease holder's expiry, a little slack before asking again */
const BUSY_SLACK_MS = 50;

/** what a turn may say back: it did not run because another process holds the heartbeat until `busyUntil` */
export type TurnOutcome = void | { ran: boolean; busyUntil?: number };

/**
 * Schedules heartbeat turns: periodically, and at once on request. Requests within
 * `coalesceMs` of each other, and those that arrive while a turn runs, coalesce (the work loop):
 * a burst of wakes costs one or two turns, not N. A turn another process holds the heartbeat for
 * is asked again when that holder's lease would run out (the holder itself runs again for wakes
 * that came during its turn; this retry covers a holder that died).
 */
export class Heartbeat {
  private timer?: NodeJS.Timeout;
  private stopped = false;
  /** whether every request the next turn answers came from the timer alone (undefined: none yet) */
  private periodicOnly?: boolean;
  private busyRetry?: NodeJS.Timeout;
  private readonly turns: WorkLoop;

  constructor(
    private readonly everyMs: number,
    private readonly turn: (signal: AbortSignal, periodic?: { everyMs: number }) => Promise<TurnOutcome>,
    private readonly logger: Logger,
    coalesceMs = 0,
  ) {
    this.turns = new WorkLoop({
      pass: (signal) => this.runTurn(signal),
      failed: (error) => {
        if (this.stopped) this.logger.info('heartbeat turn cut short by shutdown; its events stay pending');
        else this.logger.error({ err: error }, 'heartbeat turn failed');
      },
      gatherMs: coalesceMs,
    });
    this.turns.start({ wake: false });
  }

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
    // asked while a turn runs: the turn after it answers a wake, not the timer
    const timerOnly = periodic && !this.turns.inFlight;
    this.periodicOnly = (this.periodicOnly ?? true) && timerOnly;
    this.turns.wake();
  }

  private async runTurn(signal: AbortSignal): Promise<void> {
    const periodic = this.periodicOnly ?? false;
    this.periodicOnly = undefined;
    const outcome = await this.turn(signal, periodic ? { everyMs: this.everyMs } : undefined);
    if (outcome && !outcome.ran && outcome.busyUntil !== undefined && !this.stopped) {
      if (this.busyRetry) clearTimeout(this.busyRetry);
      const wait = Math.min(Math.max(outcome.busyUntil - Date.now(), 0) + BUSY_SLACK_MS, MAX_TIMER_MS);
      this.busyRetry = setTimeout(() => this.request(periodic), wait);
      this.busyRetry.unref();
    }
  }

  /** resolves once nothing is running or scheduled (tests and shutdown) */
  async idle(): Promise<void> {
    await this.turns.settled();
  }

  /** a turn waiting on a model must not hold the shutdown up: it is aborted at once */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.busyRetry) clearTimeout(this.busyRetry);
    await this.turns.stop(0);
  }
}
