import type { AgentConfig } from '../config/default-agent.js';
import type { ToolsConfig } from '../config/sections/tools-schema.js';
import { grantTools, type TurnGrantContext } from './tool-policy.js';
import { grantDirectCall, serverOfToolName } from './direct-call.js';
import type { ToolSource } from './tool-spec.js';
import type { TurnTools } from './turn-tools.js';

/** every turn's way to its tools: the MCP servers and the built-ins, granted by the running config */
export interface Toolbox {
  /** `agent`'s tools, or an API key's (`platform.apiKeys[].tools`, over /mcp): only `tools` is read */
  grant(agent: Pick<AgentConfig, 'tools'>, context: TurnGrantContext): TurnTools | undefined;
  /**
   * Until the MCP servers `agent` may use have each been tried once since they were started:
   * before, their tools are unknown, and a turn granted then would offer none of them, nor could
   * it execute a checkpointed call. Undefined when there is nothing to wait for (the usual case).
   */
  untilTried(agent: Pick<AgentConfig, 'tools'>): Promise<void> | undefined;
  /** the one tool of a direct call (a mapping's or schedule's, an MCP client's), under the same policy (direct-call.ts) */
  direct(name: string, context: TurnGrantContext): TurnTools;
  /** until the server of the tool `name` was tried once since it was started (as untilTried) */
  untilServerTried(name: string): Promise<void> | undefined;
  /** the MCP servers `agent` may use that wait for a person to sign in: a run records them */
  awaitingSignIn(agent: Pick<AgentConfig, 'tools'>): readonly string[];
  /**
   * The same object while the tools a grant is made of are the same, another once any server's
   * listing changed (McpServers keeps one list until then): what a grant is cached by, with the
   * config (a reload) by whoever caches it.
   */
  listing(): object;
}

const NO_SERVERS: readonly string[] = Object.freeze([]);

/** `config` is read at each grant, so a reload applies to the next turn */
export function createToolbox(config: () => ToolsConfig, sources: { mcp: ToolSource; builtins: ToolSource }): Toolbox {
  return {
    grant: (agent, context) => grantTools(config(), agent, sources, context),
    untilTried: (agent) => (agent.tools?.servers.length ? sources.mcp.untilTried?.(agent.tools.servers) : undefined),
    direct: (name, context) => grantDirectCall(config(), sources, name, context),
    untilServerTried: (name) => sources.mcp.untilTried?.([serverOfToolName(name)]),
    listing: () => sources.mcp.tools(),
    // asked twice by every run: an agent without servers (most) gets the one empty list
    awaitingSignIn: (agent) => (agent.tools?.servers.length ? (sources.mcp.awaitingSignIn?.(agent.tools.servers) ?? NO_SERVERS) : NO_SERVERS),
  };
}
