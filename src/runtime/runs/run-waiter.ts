import type { RunRecord, Store } from '../../store/port.js';
import { changeTopic } from '../operator/change-feed.js';
import { WorkLoop } from '../work/work-loop.js';

/**
 * Waits for runs to finish, for a hook that answers with its run's reply (`respond.waitMs`). It
 * listens to the store's signal that runs changed (LISTEN/NOTIFY on PostgreSQL, so a run finished
 * by another replica wakes it too) and then reads the awaited runs; no polling. The deadline is
 * the run's `replyAwaitedUntil`: a run that finished before it gave its reply to the answer, which
 * is what its delivery decides by too (afterRun), so a reply is either answered or delivered.
 */
export class RunWaiter {
  private readonly waiting = new Map<string, Set<(run: RunRecord) => void>>();
  private unsubscribe?: () => void;
  /** runs changed somewhere: the awaited ones are read, one read at a time (a signal meanwhile reads again after) */
  private readonly reads = new WorkLoop({ pass: () => this.readAwaited(), failed: () => {} });

  constructor(private readonly store: Pick<Store, 'runs' | 'signals'>) {
    this.reads.start({ wake: false });
  }

  /** the run once finished before `until` (epoch ms), else undefined at `until` */
  async finishedBefore(runId: string, until: number): Promise<RunRecord | undefined> {
    const taken = (run: RunRecord | undefined) => run !== undefined && run.finishedAt !== null && run.finishedAt < until;
    let listener!: (run: RunRecord) => void;
    const finished = new Promise<RunRecord>((resolve) => (listener = resolve));
    this.listen(runId, listener);
    let timer: NodeJS.Timeout | undefined;
    try {
      const early = await this.store.runs.get(runId);
      if (early?.finishedAt != null) return taken(early) ? early : undefined;
      const deadline = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), Math.max(0, until - Date.now()))));
      const run = await Promise.race([finished, deadline]);
      if (run) return taken(run) ? run : undefined;
      // the deadline: one last read, the signal of a run finished just before it may still be on its way
      const last = await this.store.runs.get(runId);
      return taken(last) ? last : undefined;
    } finally {
      clearTimeout(timer);
      this.forget(runId, listener);
    }
  }

  private listen(runId: string, listener: (run: RunRecord) => void): void {
    const set = this.waiting.get(runId) ?? new Set();
    this.waiting.set(runId, set.add(listener));
    this.unsubscribe ??= this.store.signals.subscribe(changeTopic('runs'), () => this.reads.wake());
  }

  private forget(runId: string, listener: (run: RunRecord) => void): void {
    const set = this.waiting.get(runId);
    set?.delete(listener);
    if (set?.size === 0) this.waiting.delete(runId);
    if (this.waiting.size === 0) {
      this.unsubscribe?.();
      this.unsubscribe = undefined;
    }
  }

  private async readAwaited(): Promise<void> {
    for (const [runId, listeners] of [...this.waiting]) {
      const run = await this.store.runs.get(runId).catch(() => undefined);
      if (run?.finishedAt != null) for (const listener of listeners) listener(run);
    }
  }
}
