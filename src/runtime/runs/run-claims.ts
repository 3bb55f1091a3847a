import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Lease, RunRecord, Store } from '../../store/port.js';
import { sessionChains } from '../../store/rows/session-chains.js';
import type { Slots } from './slots.js';
import { WorkLoop } from '../work/work-loop.js';

/** how often a process looks for runs it was not told about (another replica's, an expired lease) */
const POLL_MS = 1000;

/** the abort reason of a run another process took over (this one's lease ran out) */
export class LeaseLost extends Error {}

export interface RunClaimsDeps {
  store: Store;
  leaseMs: () => number;
  slots: Slots;
  logger: Logger;
  /** the chains of runs claimed, each a run and the runs of its session behind it */
  onClaimed: (chain: RunRecord[]) => void;
  /** the runs this process executes whose lease needs keeping (not those being completed) */
  held: () => string[];
  /** a run whose lease was lost: it is abandoned to its new owner */
  onLeaseLost: (id: string) => void;
}

/**
 * This process's claims on runs: taken from the store into free slots (at once when asked, and
 * by a poll for what it was not told of), kept alive by renewing their leases, given back to the
 * queue when they will not be finished here.
 */
export class RunClaims {
  /** this process's identity on claims */
  readonly owner = randomUUID();
  private readonly claims = new WorkLoop({
    pass: () => this.claimFree(),
    failed: (err) => this.deps.logger.warn({ err }, 'claiming runs failed; retrying at the next poll'),
    pollMs: POLL_MS,
  });
  private renewal?: NodeJS.Timeout;

  constructor(private readonly deps: RunClaimsDeps) {}

  /** false before start and after stop: nothing is claimed */
  get accepting(): boolean {
    return this.claims.started;
  }

  /** a lease from now, for this process */
  lease(now = Date.now()): Lease {
    return { owner: this.owner, now, until: now + this.deps.leaseMs() };
  }

  start(): void {
    this.renewal = setInterval(() => void this.renew(), Math.max(100, Math.floor(this.deps.leaseMs() / 3)));
    this.renewal.unref();
    this.claims.start();
  }

  /** stops claiming; resolves once the claim in flight, if any, is done */
  async stop(): Promise<void> {
    clearInterval(this.renewal);
    await this.claims.stop();
  }

  /** the claim in flight, if any */
  get inFlight(): Promise<void> | undefined {
    return this.claims.inFlight;
  }

  /** claims runs into free slots; calls while a claim is in flight coalesce into one more */
  claim(): void {
    this.claims.wake();
  }

  private async claimFree(): Promise<'again' | undefined> {
    const { slots } = this.deps;
    const free = slots.capacity() - slots.taken();
    if (free <= 0) return;
    const chains = sessionChains(await this.deps.store.runs.claim(this.lease(), free, slots.runsBehind()));
    for (const chain of chains) this.deps.onClaimed(chain);
    // every free slot filled: there may be more to take
    return chains.length === free ? 'again' : undefined;
  }

  /** gives runs held here back to the queue, in their session's order; finished or held elsewhere, they are left alone */
  async giveBack(ids: string[]): Promise<void> {
    await this.deps.store.runs.release(ids, this.owner);
  }

  /** keeps this process's claims alive; a run whose lease was lost (a long pause) is abandoned to its new owner */
  private async renew(): Promise<void> {
    const ids = this.deps.held();
    if (!ids.length) return;
    try {
      const held = new Set(await this.deps.store.runs.renew(ids, this.owner, Date.now() + this.deps.leaseMs()));
      for (const id of ids) if (!held.has(id)) this.deps.onLeaseLost(id);
    } catch (err) {
      this.deps.logger.warn({ err }, 'renewing run leases failed');
    }
  }
}
