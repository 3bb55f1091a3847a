import type { StateRepo } from '../../store/port.js';

const PREFIX = 'mcp-client:';
/** a session's client is remembered this long after it connected: the record of its calls outlives the session */
const KEPT_MS = 90 * 86_400_000;

/** the MCP client behind a session, as its `initialize` named it */
export interface McpClientInfo {
  name: string;
  version: string;
  /** the API key it connected with */
  key: string;
}

/**
 * Which client each /mcp session was, kept in the store's state (shared by replicas, kept after
 * the session and its process are gone), so the console names the client of a call on the
 * record: its owner id is the session's id.
 */
export class McpClients {
  constructor(private readonly state: StateRepo) {}

  async connected(sessionId: string, client: McpClientInfo, now = Date.now()): Promise<void> {
    await this.state.set(PREFIX + sessionId, client);
    await this.state.deleteOlderThan(PREFIX, now - KEPT_MS);
  }

  /** the clients of these sessions (the ones still known) */
  async of(sessionIds: readonly string[]): Promise<Map<string, McpClientInfo>> {
    const found = await Promise.all([...new Set(sessionIds)].map(async (id) => [id, await this.state.get<McpClientInfo>(PREFIX + id)] as const));
    return new Map(found.flatMap(([id, client]) => (client ? [[id, client] as const] : [])));
  }
}
