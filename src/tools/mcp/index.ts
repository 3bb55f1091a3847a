export { McpServers, type McpServersOptions } from './mcp-servers.js';
export type { ToolServerHealth, ToolServerState } from './server-health.js';
