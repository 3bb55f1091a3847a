import { randomUUID } from 'node:crypto';
import { INTERRUPTED } from '../../agents/tool-use/resume-round.js';
import type { Store, ToolCallLease } from '../../store/port.js';

/** the state rows a herald before SQLite migration 52 (PostgreSQL 43) marked its calls with */
const LEGACY_PREFIX = 'mcp-call-in-flight:';

/**
 * The governed calls of /mcp that are executing in this process. An MCP call has no run to resume
 * it: its client's session dies with the process, so nothing would ever finish its record. Each
 * record is written with a lease (ToolCallRecord.lease: this process as its owner, until
 * `agents.defaults.leaseMs` from now), in the commit that inserts it (or starts it, after an
 * approval): no write of its own. The leases of this process's calls are renewed every third of
 * leaseMs while any runs, in one statement. Whoever finds a running call whose lease ran out
 * (another replica, or this one restarted; at once when a process serves its SQLite database
 * alone) records it `interrupted`, and never runs it again.
 */
export class CallsInFlight {
  /** this process, as the owner of its calls' leases */
  readonly owner = randomUUID();
  private running = 0;
  private renewal?: NodeJS.Timeout;
  private sweeping?: NodeJS.Timeout;

  constructor(
    private readonly toolCalls: Store['toolCalls'],
    private readonly leaseMs: () => number,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  /** the lease a call's record is written with */
  lease(now = Date.now()): ToolCallLease {
    return { owner: this.owner, until: now + this.leaseMs() };
  }

  /** a call of this process starts executing (its record written with `lease()`): its lease is renewed until it ends */
  started(): void {
    this.running++;
    this.renewal ??= setInterval(() => void this.toolCalls.renewLeases(this.owner, Date.now() + this.leaseMs()).catch(this.onError), Math.max(100, Math.floor(this.leaseMs() / 3)));
    this.renewal.unref();
  }

  ended(): void {
    if (--this.running > 0 || !this.renewal) return;
    clearInterval(this.renewal);
    this.renewal = undefined;
  }

  /** looks for the calls of dead processes every half lease (store: the calls' records, and the state for a former version's marks) */
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
}

interface Sweep {
  /** the process sweeping (a former version's mark is taken in its name before its call is recorded) */
  by?: string;
  /** the process serves its database alone: every lease left was a dead predecessor's, whatever its time */
  alone?: boolean;
  now?: number;
}

/**
 * The calls a dead process left executing, recorded `interrupted`; how many. One statement over
 * the leased running records (ToolCallsRepo.interruptLapsed): when two replicas find the same
 * call, one of them records it, once. Then the marks a herald before the leased records left in
 * the store's state, taken under the store's lock (StateRepo.update) only while their lease is out.
 */
export async function interruptLeftCalls(store: Pick<Store, 'state' | 'toolCalls'>, { by = randomUUID(), alone = false, now = Date.now() }: Sweep = {}): Promise<number> {
  let interrupted = await store.toolCalls.interruptLapsed(now, INTERRUPTED, alone);
  const taker = `sweep ${by}`;
  const dead = (mark: unknown) => alone || typeof mark !== 'object' || mark === null || !((mark as ToolCallLease).until >= now);
  for (const { key, value } of await store.state.list(LEGACY_PREFIX)) {
    if (!dead(value)) continue;
    // taken for a minute: a taker that dies before it is done leaves the mark to the next one (who finds the record final, and only removes it)
    const taken = await store.state.update<ToolCallLease | null>(key, (mark) => (mark && dead(mark) ? { owner: taker, until: now + 60_000 } : (mark ?? null)));
    if (taken?.owner !== taker) {
      if (taken === null) await store.state.delete(key);
      continue;
    }
    const record = await store.toolCalls.get(key.slice(LEGACY_PREFIX.length));
    if (record?.status === 'running') {
      await store.toolCalls.finish(record.id, { status: 'interrupted', result: null, error: INTERRUPTED, finishedAt: Date.now(), durationMs: record.startedAt ? Date.now() - record.startedAt : null });
      interrupted++;
    }
    await store.state.delete(key);
  }
  return interrupted;
}
