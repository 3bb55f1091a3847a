import type { ToolCallRecord, ToolCallsRepo } from '../../../store/port.js';
import { approvalRequestItem, mcpCallItem } from './response-mcp-items.js';
import type { ResponseMcpItem } from './response-record.js';
import { callsLedger, type ToolLedger } from '../../../agents/tool-use/tool-ledger.js';

/** an output item of the turn starting (`added`) or finished (`done`) */
export interface McpItemEvent {
  type: 'mcp_item';
  phase: 'added' | 'done';
  item: ResponseMcpItem;
}

/**
 * A Responses turn's ledger: every call recorded as any turn's (callsLedger, owner `response`),
 * and told as output items as it happens: an approval request when a call is held for the
 * client, an `mcp_call` as a call starts and again when it ends (a refused one at once). A call
 * of a tool the model made up is on the record but shows no item: it names no server. A held
 * call expires as a run's does: the tool round sets its expiry (tools.approvalTimeout), the approvals sweep refuses it.
 */
export function responseLedger(repo: ToolCallsRepo, owner: string, options: { onItem: (event: McpItemEvent) => void }): ToolLedger {
  const base = callsLedger(repo, 'response', owner);
  const known = new Map<string, ToolCallRecord>();
  const tell = (phase: McpItemEvent['phase'], item: ResponseMcpItem) => options.onItem({ type: 'mcp_item', phase, item });
  const recordOf = async (id: string) => known.get(id) ?? (await repo.get(id));
  return {
    ownerKind: base.ownerKind,
    ownerId: base.ownerId,
    async begin(calls, checkpoint) {
      if (!(await base.begin(calls, checkpoint))) return false;
      for (const call of calls) {
        known.set(call.id, call);
        if (!call.server) continue;
        if (call.status === 'waiting_approval') {
          tell('added', approvalRequestItem(call));
          tell('done', approvalRequestItem(call));
        } else {
          tell('added', mcpCallItem(call));
          if (call.status !== 'running') tell('done', mcpCallItem(call));
        }
      }
      return true;
    },
    async start(id, at) {
      await base.start(id, at);
      const record = await recordOf(id);
      if (!record) return;
      const started: ToolCallRecord = { ...record, status: 'running', startedAt: at };
      known.set(id, started);
      if (started.server) tell('added', mcpCallItem(started));
    },
    async finish(id, end) {
      await base.finish(id, end);
      const record = await recordOf(id);
      if (!record) return;
      const finished: ToolCallRecord = { ...record, ...end };
      known.set(id, finished);
      if (finished.server) tell('done', mcpCallItem(finished));
    },
    recorded: base.recorded,
  };
}
