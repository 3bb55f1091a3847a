import { randomUUID } from 'node:crypto';
import { INTERRUPTED } from '../../agents/tool-use/resume-round.js';
import type { Store, StateRepo } from '../../store/port.js';

const PREFIX = 'mcp-call-in-flight:';

/** a call's mark: the process executing it, and until when that process is presumed alive */
interface Mark {
  owner: string;
  until: number;
}

/**
 * The governed calls of /mcp that are executing in this process. An MCP call has no run to resume
 * it: its client's session dies with the process, so nothing would ever finish its record. Each
 * is marked in the store's state with this process as its owner and a lease
 * (`agents.defaults.leaseMs`, renewed every third of it while the call runs). Whoever finds a mark
 * whose lease ran out (another replica, or this one restarted; at once when a process serves its
 * SQLite database alone) records that call `interrupted`, and never runs it again.
 */
export class CallsInFlight {
  /** this process, as the owner of its marks */
  readonly owner = randomUUID();
  private readonly mine = new Set<string>();
  private renewal?: NodeJS.Timeout;
  private sweeping?: NodeJS.Timeout;

  constructor(
    private readonly state: StateRepo,
    private readonly leaseMs: () => number,
  ) {}

  async started(recordId: string): Promise<void> {
    this.mine.add(recordId);
    await this.state.set(PREFIX + recordId, this.mark());
    this.renewal ??= setInterval(() => void this.renew(), Math.max(100, Math.floor(this.leaseMs() / 3)));
    this.renewal.unref();
  }

  async ended(recordId: string): Promise<void> {
    this.mine.delete(recordId);
    if (!this.mine.size && this.renewal) {
      clearInterval(this.renewal);
      this.renewal = undefined;
    }
    await this.state.delete(PREFIX + recordId);
  }

  /** looks for the marks of dead processes every half lease (store: the calls' records and the marks) */
  watch(store: Pick<Store, 'state' | 'toolCalls'>, onError: (error: unknown) => void): void {
    if (this.sweeping) return;
    this.sweeping = setInterval(() => void interruptLeftCalls(store, { by: this.owner }).catch(onError), Math.max(500, Math.floor(this.leaseMs() / 2)));
    this.sweeping.unref();
  }

  stop(): void {
    clearInterval(this.sweeping);
    clearInterval(this.renewal);
    this.sweeping = this.renewal = undefined;
  }

  private mark(now = Date.now()): Mark {
    return { owner: this.owner, until: now + this.leaseMs() };
  }

  /** this process's marks pushed forward; a mark another process took (this one seemed dead) is left to it */
  private async renew(): Promise<void> {
    for (const id of this.mine) {
      await this.state
        .update<Mark | null>(PREFIX + id, (mark) => (mark?.owner === this.owner ? this.mark() : (mark ?? null)))
        .catch(() => undefined);
    }
  }
}

interface Sweep {
  /** the process sweeping (a mark is taken in its name before its call is recorded) */
  by?: string;
  /** the process serves its database alone: every mark left was a dead predecessor's, whatever its lease */
  alone?: boolean;
  now?: number;
}

/**
 * The calls a dead process left executing, recorded `interrupted`; how many. A mark is taken
 * under the store's lock (StateRepo.update) only while its lease is out, so when two replicas find
 * the same one, one of them records it, once.
 */
export async function interruptLeftCalls(store: Pick<Store, 'state' | 'toolCalls'>, { by = randomUUID(), alone = false, now = Date.now() }: Sweep = {}): Promise<number> {
  const taker = `sweep ${by}`;
  const dead = (mark: unknown) => alone || typeof mark !== 'object' || mark === null || !((mark as Mark).until >= now);
  let interrupted = 0;
  for (const { key, value } of await store.state.list(PREFIX)) {
    if (!dead(value)) continue;
    // taken for a minute: a taker that dies before it is done leaves the mark to the next one (who finds the record final, and only removes it)
    const taken = await store.state.update<Mark | null>(key, (mark) => (mark && dead(mark) ? { owner: taker, until: now + 60_000 } : (mark ?? null)));
    if (taken?.owner !== taker) {
      if (taken === null) await store.state.delete(key);
      continue;
    }
    const record = await store.toolCalls.get(key.slice(PREFIX.length));
    if (record?.status === 'running') {
      await store.toolCalls.finish(record.id, { status: 'interrupted', result: null, error: INTERRUPTED, finishedAt: Date.now(), durationMs: record.startedAt ? Date.now() - record.startedAt : null });
      interrupted++;
    }
    await store.state.delete(key);
  }
  return interrupted;
}
