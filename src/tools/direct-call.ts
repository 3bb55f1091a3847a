import type { ToolsConfig } from '../config/sections/tools-schema.js';
import { globMatcher } from './glob-match.js';
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

/**
 * The grant decision of a direct call as a dry run can say it, without its server (whether the
 * tool only reads is known only once its server lists it): what happens to it when it is read-only,
 * and when it writes, for this request (signed or not).
 */
export function describeDirectGrant(name: string, context: { outside: boolean; signed: boolean; mapping?: { grant?: string[]; requireApproval?: unknown } }): string {
  const approval = context.mapping?.requireApproval;
  if (approval !== undefined && approval !== 'never') return `${name}: requireApproval holds it for a person (as the rule names it)`;
  if (!context.outside) return `${name}: runs without a person (the operator's own config)`;
  const granted = context.mapping?.grant !== undefined && globMatcher(context.mapping.grant)(name);
  if (granted && context.signed) return `${name}: runs at once (read-only, or granted to this signed request)`;
  const why = granted ? 'granted to signed requests only, and this one is not signed' : 'not granted by the mapping';
  return `${name}: runs at once if it is read-only; a write waits for a person (${why})`;
}
