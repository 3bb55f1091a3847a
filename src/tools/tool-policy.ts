import type { AgentConfig } from '../config/default-agent.js';
import type { McpServerConfig, MappingTools, RequireApproval, ToolsConfig } from '../config/sections/tools-schema.js';
import { globMatcher } from './glob-match.js';
import type { ToolSource, ToolSpec } from './tool-spec.js';
import type { CallVerdict, TurnTools } from './turn-tools.js';

/** the built-ins' server name: an agent lists it in `tools.servers` to be granted them */
export const BUILTIN_SERVER = 'herald';

/** what a turn is over: who may be steering it decides what it may do without a person */
export interface TurnGrantContext {
  /** the turn reads outside content (a hook run, a heartbeat over untrusted events) */
  outside: boolean;
  /** a person can be waited for (a hook run); otherwise a call needing approval is refused */
  canWait: boolean;
  /** the mapping's (or preset's) narrowing, from config */
  mapping?: MappingTools;
  /** the request's signature was verified: only then does `mapping.grant` hold */
  signed?: boolean;
}

/**
 * The tools a turn of `agent` may call, decided by config alone, never by a payload: the agent's
 * servers, narrowed by its allow and deny, narrowed again by the mapping's; and each call's
 * verdict. In a turn over outside content a tool that is not read-only waits for a person unless
 * the mapping grants it and the request was signed; `requireApproval` anywhere (server, agent,
 * mapping) only adds approvals, so no level can lift another's.
 */
export function grantTools(config: ToolsConfig, agent: Pick<AgentConfig, 'tools'>, sources: { mcp: ToolSource; builtins: ToolSource }, context: TurnGrantContext): TurnTools | undefined {
  const own = agent.tools;
  if (!own?.servers.length) return undefined;
  const servers = new Set(own.servers);
  // each narrowing's patterns compiled once per grant, not once per tool
  const narrowings = [own, context.mapping]
    .filter((n): n is NonNullable<typeof n> => n !== undefined)
    .map((n) => ({ allow: n.allow && globMatcher(n.allow), deny: n.deny && globMatcher(n.deny) }));
  const allowed = (name: string) => narrowings.every((n) => (!n.allow || n.allow(name)) && !n.deny?.(name));
  const specs = [...(servers.has(BUILTIN_SERVER) ? sources.builtins.tools() : []), ...sources.mcp.tools().filter((s) => servers.has(s.server))].filter((s) => allowed(s.name));
  const byName = new Map(specs.map((s) => [s.name, s]));
  const granted = context.signed && context.mapping?.grant ? globMatcher(context.mapping.grant) : () => false;
  const levels = (spec: ToolSpec): (RequireApproval | undefined)[] => [serverOf(config, spec.server)?.requireApproval, own.requireApproval, context.mapping?.requireApproval];
  const needsPerson = (spec: ToolSpec) => (context.outside && !spec.readOnly && !granted(spec.name)) || levels(spec).some((level) => requires(level, spec.name));
  return {
    specs,
    byName: (name) => byName.get(name),
    verdict(spec): CallVerdict {
      if (!needsPerson(spec)) return { kind: 'run' };
      if (context.canWait) return { kind: 'approve' };
      return { kind: 'refuse', reason: `${spec.name} needs a person's approval, which this turn cannot wait for (only hook runs wait for approvals)` };
    },
    call: (spec, args, options) => (spec.server === BUILTIN_SERVER ? sources.builtins : sources.mcp).call(spec, args, options),
    timeoutMs: (spec) => (serverOf(config, spec.server)?.timeoutSeconds ?? config.callTimeoutSeconds) * 1000,
    maxCallMs: (spec) => maxCallMs(config, serverOf(config, spec.server)),
    maxToolCalls: config.maxToolCalls,
    maxResultChars: config.maxResultChars,
    unavailable: (server, name) => (server !== BUILTIN_SERVER && servers.has(server) && allowed(name) ? sources.mcp.unavailable?.(server) : undefined),
  };
}

/** a call's limit in all (progress keeps it alive past its timeout up to this), never below its timeout */
export function maxCallMs(config: ToolsConfig, server: McpServerConfig | undefined): number {
  const timeout = server?.timeoutSeconds ?? config.callTimeoutSeconds;
  return Math.max(timeout, server?.maxCallSeconds ?? config.maxCallSeconds) * 1000;
}

const serverOf = (config: ToolsConfig, name: string): McpServerConfig | undefined => (Object.hasOwn(config.mcpServers, name) ? config.mcpServers[name] : undefined);

function requires(level: RequireApproval | undefined, name: string): boolean {
  if (level === undefined || level === 'never') return false;
  if (level === 'always') return true;
  return globMatcher(level.tools)(name);
}
