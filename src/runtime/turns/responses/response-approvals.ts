import { HeraldError } from '../../../errors.js';
import type { ToolApproval, ToolCallsRepo } from '../../../store/port.js';
import { recordIdOfApproval } from './response-mcp-items.js';
import type { ResponsePause, ResponseRecord } from './response-record.js';

/** one `mcp_approval_response` input item (ResponseInputItem.McpApprovalResponse) */
export interface McpApprovalAnswer {
  approvalRequestId: string;
  approve: boolean;
  reason?: string;
  /** names the item in errors: `input[0]` */
  param: string;
}

/**
 * The paused turn `mcp_approval_response` items continue: the previous response's, each item
 * answering one of its approval requests, and nothing else in the input.
 */
export function pausedTurn(previous: ResponseRecord | undefined, approvals: McpApprovalAnswer[], otherInput: number): ResponsePause {
  const first = approvals[0]!;
  if (!previous?.paused) {
    const param = `${first.param}.approval_request_id`;
    throw new HeraldError('HERALD_INVALID_FIELD', `${param}: an mcp_approval_response answers an approval request of the response named by previous_response_id, which has none`, { param });
  }
  if (previous.paused.continuedBy !== undefined) throw answeredElsewhere(previous, previous.paused.continuedBy, first.param);
  if (otherInput) throw new HeraldError('HERALD_INVALID_FIELD', 'input: mcp_approval_response items continue the paused response alone; send other input in a later request', { param: 'input' });
  for (const answer of approvals) {
    const recordId = recordIdOfApproval(answer.approvalRequestId);
    if (recordId === undefined || !previous.paused.pending.includes(recordId)) {
      const param = `${answer.param}.approval_request_id`;
      throw new HeraldError('HERALD_INVALID_FIELD', `${param}: no approval request "${answer.approvalRequestId}" waits in the response ${previous.id}`, { param });
    }
  }
  return previous.paused;
}

/** 409: another response answers (or answered) the approval requests of `previous` */
export function answeredElsewhere(previous: ResponseRecord, holder: string | undefined, itemParam: string): HeraldError {
  const param = `${itemParam}.approval_request_id`;
  return new HeraldError('HERALD_APPROVAL_NOT_PENDING', `${param}: the approval requests of the response ${previous.id} are answered by the response ${holder ?? '(gone)'}`, { param });
}

/**
 * Records the client's decisions (by its API key's name). A call decided already (by an operator
 * through the admin API, or the approval timeout) keeps that decision: the first one holds.
 */
export async function decideApprovals(repo: ToolCallsRepo, approvals: McpApprovalAnswer[], by: string): Promise<void> {
  const at = Date.now();
  for (const answer of approvals) {
    const approval: ToolApproval = { decision: answer.approve ? 'approved' : 'denied', by, at, ...(answer.reason && { reason: answer.reason }) };
    await repo.decide(recordIdOfApproval(answer.approvalRequestId)!, approval);
  }
}
