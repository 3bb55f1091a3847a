import type { AgentConfig, AgentDirectory } from '../../agents/agent-directory.js';
import type { AgentTurnDeps } from '../../agents/agent-turn.js';
import type { HeraldConfig } from '../../config/schema.js';
import { parseDuration } from '../duration.js';
import { mayUseAgent, type ApiPrincipal } from '../../accounts/api-keys.js';
import type { ToolSpec } from '../../tools/tool-spec.js';
import type { TurnTools } from '../../tools/turn-tools.js';
import { ASK_INPUT_SCHEMA, ASK_OUTPUT_SCHEMA, askToolName } from './ask-agent.js';
import { SEARCH_INPUT_SCHEMA, SEARCH_OUTPUT_SCHEMA, SEARCH_TOOL } from './search-documents.js';

/** a tool as an MCP client is offered it at /mcp */
export type OfferedTool = {
  name: string;
  title?: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations: { readOnlyHint?: boolean; destructiveHint?: boolean; openWorldHint?: boolean };
} & ({ kind: 'ask'; agent: AgentConfig } | { kind: 'search' } | { kind: 'governed'; spec: ToolSpec });

/** what one API key is offered: the tools (by name) and, for its governed calls, its grant */
export interface KeyOffer {
  tools: OfferedTool[];
  byName(name: string): OfferedTool | undefined;
  /** the key's grant over tools.mcpServers and herald's built-ins (platform.apiKeys[].tools) */
  granted?: TurnTools;
  agents: AgentConfig[];
}

export interface KeyOfferDeps {
  config: HeraldConfig;
  agents: AgentDirectory;
  turns: Pick<AgentTurnDeps, 'toolbox'>;
}

/** a key's offer, and what it was made of */
interface Made {
  deps: KeyOfferDeps;
  agents: AgentConfig[];
  listing: object | undefined;
  offer: KeyOffer;
}

/**
 * The offers made, by key: one made again only when what it is made of changed. A config reload
 * makes every key a new principal (ApiKeys.useConfig) and the agents a new list; a server's tools
 * changing makes a new listing (Toolbox.listing). A key kept in the store is a new principal at
 * each request, so its offer is made each time, as before.
 */
const made = new WeakMap<ApiPrincipal, Made>();

/** keyOffer, made once per key until a reload or a server's tools change */
export function cachedKeyOffer(deps: KeyOfferDeps, principal: ApiPrincipal): KeyOffer {
  const agents = deps.agents.all();
  const listing = deps.turns.toolbox?.listing();
  const kept = made.get(principal);
  if (kept && kept.deps === deps && kept.agents === agents && kept.listing === listing) return kept.offer;
  const offer = keyOffer(deps, principal);
  made.set(principal, { deps, agents, listing, offer });
  return offer;
}

/**
 * What an API key sees at /mcp, decided by config alone: `ask_<agent>` for each agent it may use,
 * `search_documents` over their knowledge, and the tools `platform.apiKeys[].tools` grants it, by
 * the same rules as an agent's (tool-policy.ts). The key's client is the one steering, so a call
 * waits for a person only where `requireApproval` says so; a person can always be waited for.
 * Another key's agents, tools and documents do not exist for it.
 */
export function keyOffer(deps: KeyOfferDeps, principal: ApiPrincipal): KeyOffer {
  const agents = deps.agents.all().filter((a) => mayUseAgent(principal, a.id));
  const tools: OfferedTool[] = agents.map((agent) => ({
    kind: 'ask',
    agent,
    name: askToolName(agent.id),
    title: `Ask ${agent.name ?? agent.id}`,
    description: `Ask ${agent.name ?? agent.id}, a digital employee of herald, and get its reply with the knowledge it cited. Pass the reply's conversation back to continue.`,
    inputSchema: ASK_INPUT_SCHEMA as unknown as Record<string, unknown>,
    outputSchema: ASK_OUTPUT_SCHEMA as unknown as Record<string, unknown>,
    annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
  }));
  if (agents.length) {
    tools.push({
      kind: 'search',
      name: SEARCH_TOOL,
      title: 'Search documents',
      description: "Search the knowledge documents of herald's agents this key may ask: passages with their document's resource URI.",
      inputSchema: SEARCH_INPUT_SCHEMA as unknown as Record<string, unknown>,
      outputSchema: SEARCH_OUTPUT_SCHEMA as unknown as Record<string, unknown>,
      annotations: { readOnlyHint: true, openWorldHint: false },
    });
  }
  const granted = principal.tools && deps.turns.toolbox?.grant({ tools: principal.tools }, { outside: false, canWait: true });
  const taken = new Set(tools.map((t) => t.name));
  for (const spec of granted?.specs ?? []) {
    if (taken.has(spec.name)) continue;
    tools.push({ kind: 'governed', spec, name: spec.name, description: spec.description, inputSchema: spec.inputSchema, annotations: { readOnlyHint: spec.readOnly, ...(!spec.readOnly && { destructiveHint: true }) } });
  }
  const byName = new Map(tools.map((t) => [t.name, t]));
  return { tools, byName: (name) => byName.get(name), agents, ...(granted && { granted }) };
}

/** tools.approvalTimeout in ms */
export const approvalTimeoutMs = (config: HeraldConfig): number => parseDuration(config.tools.approvalTimeout);
