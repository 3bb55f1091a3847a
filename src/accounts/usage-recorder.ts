import type { Logger } from 'pino';
import type { HeraldConfig } from '../config/schema.js';
import { resolveModelRef } from '../models/model-refs.js';
import type { UsageEntry, UsageLimit, UsageRepo } from '../store/port.js';
import { modelCost } from './model-cost.js';

/** one model call's tokens, as the caller knows them; the time, the total, the canonical ref and the cost are added here */
export type UsageRecord = Omit<UsageEntry, 'at' | 'totalTokens' | 'cost'>;

/**
 * Records the tokens of every model call in the store, priced by `models.prices`. Not on the
 * answer's path: each call's row is handed to the store at once, where it joins the writes of the
 * same tick (the turn's transcript, the run's end) in their one group commit or batch; waiting
 * a tick to gather the calls would give them a commit of their own. A budget check waits for what
 * this process has not written yet (`settled`), so a key's own last call always counts; another
 * replica's counts once its write landed.
 */
export class UsageRecorder {
  /** the writes not landed yet */
  private readonly writing = new Set<Promise<void>>();
  /** the store's latest write and how many calls it carries */
  private joined?: { write: Promise<void>; calls: number };

  constructor(
    private readonly repo: UsageRepo,
    private readonly config: Pick<HeraldConfig, 'models' | 'agents'>,
    private readonly logger: Pick<Logger, 'warn'>,
    /** told of each entry as it is recorded (the Prometheus counters) */
    private readonly onRecorded?: (entry: UsageEntry) => void,
  ) {}

  /** the call as the store keeps it: its time, canonical model ref, total and cost */
  entryOf(call: UsageRecord): UsageEntry {
    const model = this.canonical(call.model);
    const promptTokens = Math.max(0, Math.round(call.promptTokens));
    const completionTokens = Math.max(0, Math.round(call.completionTokens));
    // every field named, in one order: one shape for every entry (a copy of `call` takes the shapes of its callers')
    const entry: UsageEntry = {
      at: Date.now(),
      source: call.source,
      model,
      keyName: call.keyName,
      agentId: call.agentId,
      mappingId: call.mappingId,
      promptTokens,
      completionTokens,
      totalTokens: promptTokens + completionTokens,
      estimated: call.estimated,
      cost: modelCost(this.config.models.prices, model, promptTokens, completionTokens),
    };
    return entry;
  }

  /** reserves a call's estimate against `limits` before the call (UsageRepo.reserve) */
  reserve(estimate: UsageRecord, limits: UsageLimit[]): ReturnType<UsageRepo['reserve']> {
    return this.repo.reserve(this.entryOf(estimate), limits);
  }

  /**
   * writes a reserved call's real tokens (undefined: it spent none), watched as a record is;
   * returns the store's write, as `record` does
   */
  settle(id: number, call: UsageRecord | undefined): Promise<void> {
    const entry = call && this.entryOf(call);
    if (entry) this.onRecorded?.(entry);
    const write = this.repo.settle(id, entry);
    this.watch(write, 1);
    return write;
  }

  /**
   * Hands the call's row to the store; returns the store's write, for a caller whose answer
   * waits for the row itself (a chat completion that keeps no transcript). Its failure is
   * logged here whether or not the caller waits for it.
   */
  record(call: UsageRecord): Promise<void> {
    const entry = this.entryOf(call);
    this.onRecorded?.(entry);
    const write = this.repo.record([entry]);
    // a store that writes the calls of one commit together answers them with one promise: watched once
    if (write === this.joined?.write) this.joined.calls++;
    else this.joined = this.watch(write, 1);
    return write;
  }

  private watch(write: Promise<void>, calls: number): { write: Promise<void>; calls: number } {
    const joined = { write, calls };
    // one reaction for both outcomes (not a catch and a finally: a promise per record fewer)
    const watched: Promise<void> = write.then(
      () => {
        this.writing.delete(watched);
      },
      (error: unknown) => {
        this.writing.delete(watched);
        this.logger.warn({ err: error instanceof Error ? error.message : String(error), calls: joined.calls }, 'usage: recording failed; these calls are not counted');
      },
    );
    this.writing.add(watched);
    return joined;
  }

  /** the canonical ref of each model ref asked, under this recorder's config (the config is never changed in place) */
  private readonly canonicalRefs = new Map<string, string>();

  private canonical(ref: string): string {
    let canonical = this.canonicalRefs.get(ref);
    if (canonical === undefined) {
      canonical = resolveModelRef(ref, this.config)?.ref ?? ref;
      // refs come from config and from callers' requests (a model field): bounded, not kept without end
      if (this.canonicalRefs.size >= 1000) this.canonicalRefs.clear();
      this.canonicalRefs.set(ref, canonical);
    }
    return canonical;
  }

  /** resolves once every call recorded so far is in the store (or its write failed, logged) */
  async settled(): Promise<void> {
    await Promise.all(this.writing);
  }
}
