import type { TurnTools } from '../turn-tools.js';
import { isAllowed, mayBeAllowed, needsApproval, type McpAllowedTools, type McpApprovalPolicy } from './mcp-tool-filter.js';
import { listedToolOf, type ListedTool, type RemoteMcpServer } from './remote-mcp-server.js';

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
    // a call approved in an earlier response, resumed while the server cannot be reached: failed with why
    unavailable: (label, name) => (server.error !== undefined && label === server.label && mayBeAllowed(choices.allowedTools, label, name) ? server.error : undefined),
  };
}

/** the tools of a group the model is offered, as their `mcp_list_tools` item lists them */
export const listedTools = (tools: TurnTools): ListedTool[] => tools.specs.map(listedToolOf);
