import type { Logger } from 'pino';
import type { HeraldConfig } from '../../config/schema.js';
import type { Store } from '../../store/port.js';

/**
 * Retention runs by itself: once at start, then every `hooks.retention.pruneEveryMinutes`.
 * Expired payloads go, then the oldest beyond the total cap, then receipts past `receiptDays`.
 * Every replica may prune: the deletes are idempotent.
 */
export class RetentionPruner {
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;

  constructor(private readonly deps: { config: HeraldConfig; store: Store; logger: Logger }) {}

  async prune(now = Date.now()): Promise<{ payloads: number; receipts: number }> {
    const { retention } = this.deps.config.hooks;
    const removed = await this.deps.store.receipts.prune({
      now,
      maxTotalBytes: retention.maxTotalBytes,
      receiptsBefore: now - retention.receiptDays * 86_400_000,
    });
    if (removed.payloads || removed.receipts) this.deps.logger.info(removed, 'retention pruned');
    return removed;
  }

  start(): void {
    const tick = () => {
      this.running = this.prune().catch((err) => this.deps.logger.error({ err }, 'retention pruning failed'));
    };
    tick();
    this.timer = setInterval(tick, this.deps.config.hooks.retention.pruneEveryMinutes * 60_000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
