/**
 * `connecting`: starting or reconnecting; `failed`: down, waiting to try again; `needs_authorization`:
 * waiting for a person to sign in (not retried meanwhile); `stopped`: shut down or removed
 */
export type ToolServerState = 'connecting' | 'ready' | 'failed' | 'needs_authorization' | 'stopped';

/** one MCP server's health, as /readyz, /metrics, the console and the tools.unhealthy alert read it */
export interface ToolServerHealth {
  server: string;
  transport: 'stdio' | 'http';
  state: ToolServerState;
  /** epoch ms: when it became ready; otherwise since when it has not been ready */
  since: number;
  /** why it last failed: the error's message only (never arguments, headers or env values) */
  lastError?: string;
  /** the tools herald offers from it */
  tools: number;
  /** the server listed more than tools.maxToolsPerServer: the tools it listed (at least), of which `tools` are kept */
  listed?: number;
  /** times its connection was made again after one failed or closed */
  restarts: number;
}

/** trouble for the Overview: failed, or connecting again after a failure (one connecting for the first time is not, yet) */
export const isTroubled = (h: Pick<ToolServerHealth, 'state' | 'lastError'>): boolean => h.state === 'failed' || h.state === 'needs_authorization' || (h.state === 'connecting' && h.lastError !== undefined);
