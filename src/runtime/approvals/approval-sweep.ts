import type { Logger } from 'pino';
import type { Store, ToolCallRecord } from '../../store/port.js';
import { announceApprovals, type AnnounceDeps } from './announce-approvals.js';
import { pendingApprovals } from './approval-context.js';
import { approvalNoticeId } from './approval-notice.js';

/** how often expired approvals are refused: an approval is refused at most this long after it expired */
export const SWEEP_EVERY_MS = 30_000;

/**
 * The sweep's interval for an approval timeout: every SWEEP_EVERY_MS, or a quarter of a shorter
 * timeout (not under half a second), so a call is refused close to its time, not up to 30 s late.
 */
export function sweepEveryMs(approvalTimeoutMs: number): number {
  return Math.min(SWEEP_EVERY_MS, Math.max(500, Math.floor(approvalTimeoutMs / 4)));
}
/** calls read per query */
const BATCH = 100;
/** the most batches one pass expires: a pass always ends, the next takes the rest */
const MAX_BATCHES = 50;

export interface ApprovalSweepDeps {
  store: Pick<Store, 'toolCalls' | 'runs' | 'deliveries'>;
  announce: AnnounceDeps;
  logger: Logger;
  everyMs?: number;
}

/**
 * Runs by itself, like retention: at start, then every SWEEP_EVERY_MS. It refuses the calls whose
 * `approvalExpiresAt` passed (`expired`, by `timeout`: the run resumes and its model is told the
 * call was refused), and announces pending calls whose notice is missing (a process that died
 * between pausing a run and queueing its notices). Every replica may sweep: `decide` is atomic
 * (one decision wins) and a notice's id is derived from its call and target (one row).
 */
export class ApprovalSweep {
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;

  constructor(private readonly deps: ApprovalSweepDeps) {}

  async sweep(now = Date.now()): Promise<{ expired: number; announced: number }> {
    const expired = await this.expire(now);
    const announced = await this.catchUp();
    if (expired || announced) this.deps.logger.info({ expired, announced }, 'approval sweep');
    return { expired, announced };
  }

  private async expire(now: number): Promise<number> {
    const { toolCalls } = this.deps.store;
    let expired = 0;
    for (let batch = 0; batch < MAX_BATCHES; batch++) {
      const due = await toolCalls.expiredApprovals(now, BATCH);
      let decided = 0;
      for (const call of due) {
        if (await toolCalls.decide(call.id, { decision: 'expired', by: 'timeout', at: now })) decided++;
      }
      expired += decided;
      // a short batch was the last; one where nothing was decided is another replica's sweep at work
      if (due.length < BATCH || decided === 0) break;
    }
    return expired;
  }

  private async catchUp(): Promise<number> {
    if (!this.deps.announce.config.tools.approvals.targets.length) return 0;
    let announced = 0;
    for (const { call, run } of await pendingApprovals(this.deps.store, BATCH)) {
      if (await this.missesNotice(call)) announced += await announceApprovals(this.deps.announce, run ?? undefined, [call]);
    }
    return announced;
  }

  private async missesNotice(call: ToolCallRecord): Promise<boolean> {
    for (const target of this.deps.announce.config.tools.approvals.targets) {
      if (!(await this.deps.store.deliveries.get(approvalNoticeId(call.id, target)))) return true;
    }
    return false;
  }

  start(): void {
    let busy = false;
    const tick = () => {
      // a pass slower than the interval (a store that hardly answers) is not joined by another
      if (busy) return;
      busy = true;
      this.running = this.sweep()
        .catch((err) => this.deps.logger.error({ err }, 'approval sweep failed'))
        .finally(() => (busy = false));
    };
    tick();
    this.timer = setInterval(tick, this.deps.everyMs ?? SWEEP_EVERY_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
