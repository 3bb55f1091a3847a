import { HeraldError } from '../../errors.js';
import { MCP_OWNER } from '../mcp-endpoint/governed-call.js';
import { McpClients, type McpClientInfo } from '../mcp-endpoint/mcp-clients.js';
import { isUnfinished, type RunRecord, type Store, type ToolCallRecord } from '../../store/port.js';

/** a tool call as a person judges it: with the run it belongs to (agent, mapping, status), when it has one */
export interface ApprovalContext {
  call: ToolCallRecord;
  run: RunRecord | null;
  /** the MCP client that made the call through /mcp (owner kind mcp), when it is known */
  mcpClient?: McpClientInfo | null;
}

/** with the state, an MCP call's client is named too */
type Reader = Pick<Store, 'toolCalls' | 'runs'> & Partial<Pick<Store, 'state'>>;

/**
 * The calls waiting for a person, oldest first (the first to expire first), each with its run;
 * not those of a run that ended meanwhile (cancelled while it waited): nothing waits for them;
 * nor a Responses call, which its API client decides.
 */
export async function pendingApprovals(store: Reader, limit: number): Promise<ApprovalContext[]> {
  const calls = await store.toolCalls.pendingApprovals(limit);
  const runIds = [...new Set(calls.filter((c) => c.ownerKind === 'run').map((c) => c.ownerId))];
  const runs = new Map((await Promise.all(runIds.map((id) => store.runs.get(id)))).flatMap((r) => (r ? [[r.id, r] as const] : [])));
  const clients = store.state ? await new McpClients(store.state).of(calls.filter((c) => c.ownerKind === MCP_OWNER).map((c) => c.ownerId)) : new Map<string, McpClientInfo>();
  return calls
    .filter((call) => call.ownerKind !== 'response')
    .map((call) => ({ call, run: (call.ownerKind === 'run' && runs.get(call.ownerId)) || null, mcpClient: clients.get(call.ownerId) ?? null }))
    .filter(({ run }) => !run || isUnfinished(run.status));
}

/** one call, pending or decided, with its run; HERALD_NOT_FOUND for an unknown id */
export async function approvalContext(store: Reader, id: string): Promise<ApprovalContext> {
  const call = await store.toolCalls.get(id);
  if (!call) throw new HeraldError('HERALD_NOT_FOUND', 'tool call not found');
  const mcpClient = call.ownerKind === MCP_OWNER && store.state ? ((await new McpClients(store.state).of([call.ownerId])).get(call.ownerId) ?? null) : null;
  return { call, run: call.ownerKind === 'run' ? ((await store.runs.get(call.ownerId)) ?? null) : null, mcpClient };
}
