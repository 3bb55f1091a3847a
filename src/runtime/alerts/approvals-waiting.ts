import { toolName } from '../../tools/tool-name.js';
import type { Store } from '../../store/port.js';
import { pendingApprovals } from '../approvals/approval-context.js';
import { parseDuration } from '../duration.js';
import type { AlertCheck } from './alert-check.js';

/** the waiting calls read per pass: the oldest come first, so the first tells whether any is too old */
const READ = 100;
const KEY = 'approvals.waiting';

/**
 * The approvals.waiting rule: a tool call has waited for a person longer than `olderThan`. One
 * incident for all of them (its summary counts them and names the oldest), open while any waits
 * that long: a person acting on the Approvals page resolves it.
 */
export function approvalsWaiting(store: Pick<Store, 'toolCalls' | 'runs'>, olderThan: string): AlertCheck {
  const olderThanMs = parseDuration(olderThan);
  return {
    condition: KEY,
    async firing(now) {
      const old = (await pendingApprovals(store, READ)).filter(({ call }) => call.createdAt <= now - olderThanMs);
      const oldest = old[0];
      if (!oldest) return [];
      const { call, run } = oldest;
      const count = old.length === READ ? `${READ} or more tool calls` : old.length === 1 ? 'a tool call' : `${old.length} tool calls`;
      const of = run ? `run ${run.name} (${run.id})` : `${call.ownerKind} ${call.ownerId}`;
      return [
        {
          condition: KEY,
          incidentKey: KEY,
          cooldownKey: KEY,
          subject: 'approvals',
          summary: `${count} ${old.length === 1 ? 'has' : 'have'} waited for a person for more than ${olderThan}; the oldest, ${toolName(call.server, call.tool)} of ${of}, since ${new Date(call.createdAt).toISOString()} (decide in the console's Approvals page)`,
        },
      ];
    },
    holds: async (open, firing) => (open.incidentKey === KEY ? firing.some((i) => i.incidentKey === KEY) : undefined),
  };
}
