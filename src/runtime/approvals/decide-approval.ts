import type { Logger } from 'pino';
import { HeraldError } from '../../errors.js';
import { isUnfinished, type Store, type ToolApproval, type ToolCallRecord } from '../../store/port.js';

/** a person's decision on a call waiting for approval */
export interface ApprovalInput {
  decision: 'approve' | 'deny';
  /** who decided (the admin caller's identity, see http/admin/admin-auth.ts) */
  by: string;
  reason?: string;
}

export interface DecideDeps {
  store: Pick<Store, 'toolCalls' | 'runs' | 'signals'>;
  logger?: Logger;
  now?: () => number;
}

/**
 * Records a person's decision. The store decides atomically (ToolCallsRepo.decide): of two
 * decisions racing, on one replica or several, one wins and the other is told the call no longer
 * waits (409). When the call was its run's last undecided one, the run is queued again in the same
 * transaction and any replica resumes its turn.
 */
/** the store signal that a run waiting for approval may be claimable again */
export const RUN_RESUMABLE_TOPIC = 'runs.resumable';

export async function decideApproval(deps: DecideDeps, id: string, input: ApprovalInput): Promise<ToolCallRecord> {
  const approval: ToolApproval = {
    decision: input.decision === 'approve' ? 'approved' : 'denied',
    by: input.by,
    at: (deps.now ?? Date.now)(),
    ...(input.reason !== undefined && { reason: input.reason }),
  };
  await refuseWhenRunEnded(deps.store, id);
  const decided = await deps.store.toolCalls.decide(id, approval);
  if (!decided) throw await notPending(deps.store, id);
  // a run queued again by this decision is claimed at once by whichever process hears it, not at the next poll
  if (decided.ownerKind === 'run') deps.store.signals.publish(RUN_RESUMABLE_TOPIC);
  // who and what, never the arguments
  deps.logger?.info(
    { toolCallId: id, ownerKind: decided.ownerKind, ownerId: decided.ownerId, server: decided.server, tool: decided.tool, decision: approval.decision, by: approval.by },
    `tool call ${approval.decision} by ${approval.by}`,
  );
  return decided;
}

/**
 * A run cancelled (or otherwise ended) while its calls waited leaves them undecided, and nothing
 * will resume it: a decision there would be recorded for nobody (the sweep expires them in time).
 */
async function refuseWhenRunEnded(store: Pick<Store, 'toolCalls' | 'runs'>, id: string): Promise<void> {
  const call = await store.toolCalls.get(id);
  if (!call) throw new HeraldError('HERALD_NOT_FOUND', 'tool call not found');
  // a Responses call asked for approval is its API client's to decide (mcp_approval_response), not an operator's
  if (call.ownerKind === 'response' && !call.approval) {
    throw new HeraldError('HERALD_APPROVAL_NOT_PENDING', `tool call ${id} waits for the API client that asked for it (an mcp_approval_response to response ${call.ownerId})`, { details: { status: call.status } });
  }
  if (call.ownerKind !== 'run' || call.approval) return;
  const run = await store.runs.get(call.ownerId);
  if (run && !isUnfinished(run.status)) {
    throw new HeraldError('HERALD_APPROVAL_NOT_PENDING', `tool call ${id} belongs to run ${run.id}, which is ${run.status}: nothing waits for the decision`, { details: { status: call.status, run: run.status } });
  }
}

/** why a call cannot be decided: unknown (404), or no longer (or never) waiting (409, saying how it stands) */
async function notPending(store: Pick<Store, 'toolCalls'>, id: string): Promise<HeraldError> {
  const call = await store.toolCalls.get(id);
  if (!call) return new HeraldError('HERALD_NOT_FOUND', 'tool call not found');
  if (call.approval) {
    const { decision, by, at } = call.approval;
    return new HeraldError('HERALD_APPROVAL_NOT_PENDING', `tool call ${id} was already ${decision} by ${by} at ${new Date(at).toISOString()}`, {
      details: { status: call.status, approval: { decision, by, at: new Date(at).toISOString() } },
    });
  }
  if (!call.approvalRequired) return new HeraldError('HERALD_APPROVAL_NOT_PENDING', `tool call ${id} needed no approval (it is ${call.status})`, { details: { status: call.status } });
  return new HeraldError('HERALD_APPROVAL_NOT_PENDING', `tool call ${id} no longer waits for approval (it is ${call.status})`, { details: { status: call.status } });
}
