import type { Logger } from 'pino';
import type { HeraldConfig } from '../../config/schema.js';
import type { RunRecord, Store, ToolCallRecord } from '../../store/port.js';
import { announceApprovals, type NoticeOutbox } from './announce-approvals.js';
import { ApprovalSweep, sweepEveryMs } from './approval-sweep.js';
import { parseDuration } from '../duration.js';
import { decideApproval, type ApprovalInput } from './decide-approval.js';

export interface ApprovalsDeps {
  config: HeraldConfig;
  store: Store;
  /** the durable outbox (DeliveryOutbox): notices go as alerts' do */
  outbox: NoticeOutbox;
  logger: Logger;
  /** how often the sweep runs (default: sweepEveryMs of tools.approvalTimeout) */
  sweepEveryMs?: number;
}

/**
 * Approvals by a person, as the gateway holds them: the announcement of a paused run's calls,
 * the decisions, and the sweep that refuses expired ones and catches up on notices. The admin
 * API decides through the same use case (decide-approval.ts) with the caller's identity.
 */
export class Approvals {
  private readonly log: Logger;
  private readonly sweeper: ApprovalSweep;

  constructor(private readonly deps: ApprovalsDeps) {
    this.log = deps.logger.child({ component: 'approvals' });
    this.sweeper = new ApprovalSweep({ store: deps.store, announce: this.announceDeps, logger: this.log, everyMs: deps.sweepEveryMs ?? sweepEveryMs(parseDuration(deps.config.tools.approvalTimeout)) });
  }

  private get announceDeps() {
    return { config: this.deps.config, outbox: this.deps.outbox, logger: this.log };
  }

  /** called as a run pauses for approval: a notice per pending call to each tools.approvals.targets entry; never throws */
  announce(run: RunRecord | undefined, calls: readonly ToolCallRecord[]): Promise<number> {
    return announceApprovals(this.announceDeps, run, calls);
  }

  decide(id: string, input: ApprovalInput): Promise<ToolCallRecord> {
    return decideApproval({ store: this.deps.store, logger: this.log }, id, input);
  }

  /** one pass of the sweep now (expired approvals refused, missing notices queued) */
  sweep(now?: number): Promise<{ expired: number; announced: number }> {
    return this.sweeper.sweep(now);
  }

  start(): void {
    this.sweeper.start();
  }

  stop(): Promise<void> {
    return this.sweeper.stop();
  }
}
