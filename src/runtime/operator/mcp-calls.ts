import { MCP_OWNER } from '../mcp-endpoint/governed-call.js';
import { McpClients, type McpClientInfo } from '../mcp-endpoint/mcp-clients.js';
import type { Store, ToolCallRecord } from '../../store/port.js';

/** a call an MCP client made through /mcp, with the client its session was (null once forgotten, after 90 days) */
export interface McpCall {
  call: ToolCallRecord;
  client: McpClientInfo | null;
}

/**
 * The newest calls MCP clients made through /mcp, each named by its client as `initialize` named
 * it and by its key: the record's owner is the session, and the session's client is kept in the
 * store's state (McpClients) by whichever replica served it.
 */
export async function recentMcpCalls(store: Pick<Store, 'toolCalls' | 'state'>, limit: number): Promise<McpCall[]> {
  const calls = await store.toolCalls.recentOf(MCP_OWNER, limit);
  const clients = store.state ? await new McpClients(store.state).of(calls.map((c) => c.ownerId)) : new Map<string, McpClientInfo>();
  return calls.map((call) => ({ call, client: clients.get(call.ownerId) ?? null }));
}
