import type { Logger } from 'pino';
import type { HeraldConfig } from '../config/schema.js';
import { resolveModelRef } from '../models/model-refs.js';
import type { UsageEntry, UsageRepo } from '../store/port.js';

/** one model call's tokens, as the caller knows them; the time, the total, the canonical ref and the cost are added here */
export type UsageRecord = Omit<UsageEntry, 'at' | 'totalTokens' | 'cost'>;

/**
 * Records the tokens of every model call in the store, priced by `models.prices`. Not on the
 * answer's path: the calls of one tick go to the store together, in one write, after the answer
 * is on its way. A budget check waits for what this process has not written yet (`settled`),
 * so a key's own last call always counts; another replica's counts once its write landed.
 */
export class UsageRecorder {
  private pending: UsageEntry[] = [];
  private writing: Promise<void> = Promise.resolve();
  private scheduled = false;

  constructor(
    private readonly repo: UsageRepo,
    private readonly config: Pick<HeraldConfig, 'models' | 'agents'>,
    private readonly logger: Pick<Logger, 'warn'>,
    /** told of each entry as it is recorded (the Prometheus counters) */
    private readonly onRecorded?: (entry: UsageEntry) => void,
  ) {}

  record(call: UsageRecord): void {
    const model = resolveModelRef(call.model, this.config)?.ref ?? call.model;
    const price = Object.hasOwn(this.config.models.prices, model) ? this.config.models.prices[model] : undefined;
    const promptTokens = Math.max(0, Math.round(call.promptTokens));
    const completionTokens = Math.max(0, Math.round(call.completionTokens));
    const entry: UsageEntry = {
      ...call,
      at: Date.now(),
      model,
      promptTokens,
      completionTokens,
      totalTokens: promptTokens + completionTokens,
      cost: price ? (promptTokens * price.input + completionTokens * price.output) / 1_000_000 : 0,
    };
    this.pending.push(entry);
    this.onRecorded?.(entry);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => void this.flush());
    }
  }

  /** resolves once every call recorded so far is in the store (or its write failed, logged) */
  settled(): Promise<void> {
    return this.pending.length ? this.flush() : this.writing;
  }

  flush(): Promise<void> {
    this.scheduled = false;
    const batch = this.pending;
    if (!batch.length) return this.writing;
    this.pending = [];
    // one write at a time, in order: a budget check awaiting `settled` sees every earlier call
    this.writing = this.writing.then(() =>
      this.repo.record(batch).catch((error: unknown) => {
        this.logger.warn({ err: error instanceof Error ? error.message : String(error), calls: batch.length }, 'usage: recording failed; these calls are not counted');
      }),
    );
    return this.writing;
  }
}
