import type { Logger } from 'pino';
import type { HeraldConfig } from '../../config/schema.js';
import type { RunRecord, ToolCallRecord } from '../../store/port.js';
import { approvalNoticeId, approvalNoticeText } from './approval-notice.js';

/** the durable outbox, as approvals use it: an alert-kind notice with an id derived from the call and target */
export interface NoticeOutbox {
  deliverAlert(notice: { id: string; channel: string; to?: string; text: string }): Promise<void>;
}

export interface AnnounceDeps {
  config: Pick<HeraldConfig, 'tools' | 'gateway'>;
  outbox: NoticeOutbox;
  logger?: Logger;
}

/** a call a person has yet to decide */
export const awaitsDecision = (call: ToolCallRecord): boolean => call.status === 'waiting_approval' && call.approvalRequired && !call.approval;

/**
 * Announces a paused run's pending calls: one notice per call to each `tools.approvals.targets`
 * entry, through the durable outbox (retried, with the targets' fallbacks, as alerts' notices).
 * Never throws: a notice that could not be queued (the store away) is queued by the approval
 * sweep's next pass, which announces every pending call lacking its notice. Returns how many
 * notices were queued.
 */
export async function announceApprovals(deps: AnnounceDeps, run: RunRecord | undefined, calls: readonly ToolCallRecord[]): Promise<number> {
  const { targets } = deps.config.tools.approvals;
  let queued = 0;
  for (const call of calls.filter(awaitsDecision)) {
    const text = approvalNoticeText(call, run, deps.config.gateway);
    for (const target of targets) {
      try {
        await deps.outbox.deliverAlert({ id: approvalNoticeId(call.id, target), channel: target.channel, to: target.to, text });
        queued++;
      } catch (err) {
        deps.logger?.error({ err, toolCallId: call.id, channel: target.channel }, 'approval notice not queued; the approval sweep tries again');
      }
    }
  }
  return queued;
}
