import type { Logger } from 'pino';
import type { StoreProbe } from '../store/contracts/store-probe.js';
import { MAX_PENDING_EVENTS } from './main-session.js';

/**
 * Says when the main session drops events: its queue keeps the newest 20 pending, so a burst of
 * wakes beyond that loses the oldest while every sender got 200. One warning when a burst starts
 * dropping, one info line with the burst's total once a check finds no new drop; never a line per
 * event. Checked shortly after each enqueue (coalesced) and every `everyMs`, from the store's
 * count of dropped events (so drops by any replica or by a run's summary are seen too).
 */
export class DropWatch {
  private last?: number;
  private burst = 0;
  private timer?: NodeJS.Timeout;
  private interval?: NodeJS.Timeout;
  private checking?: Promise<void>;

  constructor(
    private readonly probe: StoreProbe,
    private readonly logger: Logger,
    private readonly options: { settleMs?: number; everyMs?: number } = {},
  ) {}

  async start(): Promise<void> {
    this.last = (await this.probe.counts().catch(() => undefined))?.eventsDropped;
    this.interval = setInterval(() => this.kick(), this.options.everyMs ?? 30_000);
    this.interval.unref();
  }

  /** an event was enqueued: check soon (many enqueues share one check) */
  kick(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.checking ??= this.check().finally(() => (this.checking = undefined));
    }, this.options.settleMs ?? 250);
    this.timer.unref();
  }

  private async check(): Promise<void> {
    const counts = await this.probe.counts().catch(() => undefined);
    if (!counts) return;
    const now = counts.eventsDropped;
    const added = this.last === undefined ? 0 : now - this.last;
    this.last = now;
    if (added > 0) {
      if (this.burst === 0) {
        this.logger.warn(
          { dropped: added, maxPending: MAX_PENDING_EVENTS, droppedTotal: now },
          `main session queue full: the oldest pending events are dropped (at most ${MAX_PENDING_EVENTS} wait for a heartbeat); this burst is logged once`,
        );
      }
      this.burst += added;
      // keep checking until the burst is over, to report its total
      this.kick();
    } else if (this.burst > 0) {
      this.logger.info({ dropped: this.burst, droppedTotal: now }, 'main session drop burst over');
      this.burst = 0;
    }
  }

  stop(): void {
    clearTimeout(this.timer);
    clearInterval(this.interval);
  }
}
