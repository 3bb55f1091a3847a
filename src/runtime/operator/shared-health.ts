import os from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { StateRepo } from '../../store/port.js';
import { WorkLoop } from '../work/work-loop.js';

/** what kind of part: a model provider, a channel, an MCP server */
export type PartKind = 'provider' | 'channel' | 'toolServer';

/** one part unhealthy on this replica, as the replica's own records say */
export interface TroubledPart {
  kind: PartKind;
  name: string;
  /** why it last failed, in words an operator acts on (never a body, a payload value or a secret) */
  cause: string | null;
  /** when its failures began (an MCP server: since when it is not ready) */
  since: number;
  lastFailureAt: number | null;
  consecutiveFailures: number;
  /** an MCP server's state (failed, connecting) */
  state?: string;
}

/** a part unhealthy on some replica, as that replica last wrote it to the store */
export interface SharedPart extends TroubledPart {
  /** the replica that saw it: `host:pid:random` */
  replica: string;
  /** when that replica last wrote it (at the change, then every REFRESH_MS while it lasts) */
  seenAt: number;
}

/** a replica rewrites its unhealthy parts this often while it has any: how the others know it still runs */
export const REFRESH_MS = 30_000;
/** not written again for this long: its replica has stopped without a word (crashed), the entry is stale */
export const STALE_MS = 3 * REFRESH_MS;
/** not written again for this long: the entry is no longer shown, and is deleted */
export const DROP_MS = 15 * 60_000;

const PREFIX = 'health:';

/** this process's name among the replicas: readable (host and pid) and unique (two gateways in one process) */
export const replicaId = (): string => `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

const keyOf = (replica: string, part: { kind: PartKind; name: string }) => `${PREFIX}${replica}/${part.kind}/${part.name}`;
/**
 * what a write is for: a part turning unhealthy or changing cause; not one more failure, nor an
 * MCP server's failed/connecting turns while it retries (the refresh carries those)
 */
const signature = (part: TroubledPart) => JSON.stringify([part.cause, part.since]);

/**
 * Each replica's unhealthy parts in the store's state, so the console of any replica sharing the
 * store shows them all. A replica writes a part when it changes (turns unhealthy, changes cause,
 * recovers: its entry is deleted), never per call: `changed()` compares this replica's records
 * with what it last wrote, in memory. While it has unhealthy parts it rewrites them every
 * REFRESH_MS: an entry not rewritten for STALE_MS is of a replica that stopped (shown as stale),
 * after DROP_MS it is dropped. A replica that stops cleanly deletes its own.
 */
export class SharedHealth {
  private written = new Map<string, string>();
  /** one write pass at a time; a change told during one is written by the next */
  private readonly writes = new WorkLoop({
    pass: () => this.writePass(),
    failed: (err) => this.deps.logger.warn({ err }, 'health: writing this replica\'s entries failed'),
  });
  /** the next pass rewrites every entry (the timer's refresh), not only what changed */
  private refreshNext = false;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly deps: {
      state: StateRepo;
      replica: string;
      /** this replica's unhealthy parts of the moment */
      troubled: () => TroubledPart[];
      /** told after a write reached the store (the other replicas' live Overview) */
      onWritten?: () => void;
      logger: Logger;
    },
  ) {}

  get replica(): string {
    return this.deps.replica;
  }

  /** forgets what an earlier process of this id left, and the entries of replicas gone long ago */
  async start(): Promise<void> {
    await this.deps.state
      .deleteOlderThan(`${PREFIX}${this.deps.replica}/`, Date.now() + 1)
      .catch((err: unknown) => this.deps.logger.warn({ err }, "health: could not forget an earlier process's entries"));
    await this.prune();
    this.timer = setInterval(() => this.refresh(), REFRESH_MS);
    this.timer.unref();
    this.writes.start();
  }

  /** this replica's records changed (a part failed or recovered): writes what differs from the store */
  changed(): void {
    this.writes.wake();
  }

  /** the unhealthy parts of the other replicas, each marked stale when its replica has not written for STALE_MS */
  async others(now = Date.now()): Promise<(SharedPart & { stale: boolean })[]> {
    const rows = await this.deps.state.list<SharedPart>(PREFIX);
    return rows
      .map((r) => r.value)
      .filter((p) => p.replica !== this.deps.replica && p.seenAt >= now - DROP_MS)
      .map((p) => ({ ...p, stale: p.seenAt < now - STALE_MS }));
  }

  /** deletes this replica's entries: it no longer calls anything */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.writes.stop();
    // all of them, not only those written: a write that failed may still have landed
    await this.deps.state.deleteOlderThan(`${PREFIX}${this.deps.replica}/`, Date.now() + 1).catch((err: unknown) => this.deps.logger.warn({ err }, 'health: could not delete this replica\'s entries'));
  }

  /** every entry written again, so the others do not take this replica for stopped; none while a pass is under way */
  private refresh(): void {
    // a replica with nothing unhealthy writes nothing: the hot path and an idle store pay nothing
    if (this.written.size === 0 && this.deps.troubled().length === 0) return;
    if (this.writes.inFlight) return;
    this.refreshNext = true;
    this.writes.wake();
  }

  private async writePass(): Promise<void> {
    const refresh = this.refreshNext;
    this.refreshNext = false;
    await this.sync(refresh);
    if (refresh) await this.prune();
  }

  private async prune(): Promise<void> {
    await this.deps.state.deleteOlderThan(PREFIX, Date.now() - DROP_MS).catch(() => 0);
  }

  /** writes the parts that changed (all of them when `all`: the refresh), deletes the recovered ones */
  private async sync(all: boolean): Promise<void> {
    const { state, replica } = this.deps;
    const now = new Map(this.deps.troubled().map((p) => [keyOf(replica, p), p]));
    let wrote = false;
    try {
      for (const [key, part] of now) {
        const sig = signature(part);
        if (!all && this.written.get(key) === sig) continue;
        await state.set(key, { ...part, replica, seenAt: Date.now() } satisfies SharedPart);
        this.written.set(key, sig);
        wrote = true;
      }
      for (const key of [...this.written.keys()]) {
        if (now.has(key)) continue;
        await state.delete(key);
        this.written.delete(key);
        wrote = true;
      }
    } catch (err) {
      // the store is away: what is unwritten is written at the next change or refresh
      this.deps.logger.warn({ err }, 'health: could not share this replica\'s unhealthy parts');
    }
    if (wrote && !all) this.deps.onWritten?.();
  }
}
