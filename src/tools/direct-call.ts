import type { ToolsConfig } from '../config/sections/tools-schema.js';
import { grantTools, type TurnGrantContext } from './tool-policy.js';
import type { ToolSource } from './tool-spec.js';
import type { TurnTools } from './turn-tools.js';

/** the server a tool name (`<server>__<tool>`) belongs to: server names hold no `__` (tools-schema.ts) */
export const serverOfToolName = (name: string): string => name.slice(0, Math.max(0, name.indexOf('__')));

/**
 * The one tool `name` granted to a call made outside an agent's turn: a mapping's or a schedule's
 * direct call (`action: "tool"`, `toolCall`), or herald's own MCP clients. The same policy as an
 * agent's calls (grantTools), as if an agent had only this tool: over outside content a tool that
 * is not read-only waits for a person unless the mapping grants it to a signed request, and
 * `requireApproval` at the server or the mapping adds approvals. Its `specs` is empty while its
 * server is not connected (`unavailable` says why).
 */
export function grantDirectCall(config: ToolsConfig, sources: { mcp: ToolSource; builtins: ToolSource }, name: string, context: TurnGrantContext): TurnTools {
  const tools = grantTools(config, { tools: { servers: [serverOfToolName(name)], allow: [name] } }, sources, context);
  // a name always gives a server: grantTools answers undefined only for an agent without servers
  return tools!;
}
