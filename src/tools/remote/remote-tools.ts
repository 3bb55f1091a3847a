import type { TurnTools } from '../turn-tools.js';
import { isAllowed, needsApproval, type McpAllowedTools, type McpApprovalPolicy } from './mcp-tool-filter.js';
import type { ListedTool, RemoteMcpServer } from './remote-mcp-server.js';

/** what a request's `mcp` tool says of its server's tools */
export interface McpToolChoices {
  allowedTools?: McpAllowedTools | null;
  requireApproval?: McpApprovalPolicy | null;
}

/**
 * A request's remote server as a group of the turn's tools: the tools `allowed_tools` lets
 * through, each call waiting for the client's approval as `require_approval` says (OpenAI's
 * default: always), within the turn's limits.
 */
export function remoteTools(server: RemoteMcpServer, choices: McpToolChoices, limits: { timeoutMs: number; maxToolCalls: number; maxResultChars: number }): TurnTools {
  const specs = server.specs.filter((spec) => isAllowed(choices.allowedTools, spec));
  const byName = new Map(specs.map((s) => [s.name, s]));
  return {
    specs,
    byName: (name) => byName.get(name),
    verdict: (spec) => (needsApproval(choices.requireApproval, spec) ? { kind: 'approve' } : { kind: 'run' }),
    call: (spec, args, options) => server.call(spec, args, options),
    timeoutMs: () => limits.timeoutMs,
    maxToolCalls: limits.maxToolCalls,
    maxResultChars: limits.maxResultChars,
  };
}

/** the tools of `server` the model is offered, as its `mcp_list_tools` item lists them */
export function listedTools(server: RemoteMcpServer, tools: TurnTools): ListedTool[] {
  const offered = new Set(tools.specs.map((s) => s.tool));
  return server.listed.filter((t) => offered.has(t.name));
}
