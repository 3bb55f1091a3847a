import type { HeraldConfig } from '../../../config/schema.js';
import { HeraldError } from '../../../errors.js';
import { randomHex } from '../../../utils/random-hex.js';
import { mergedTools, narrowedTools } from '../../../tools/merged-tools.js';
import { isAllowed, mayBeAllowed, needsApproval } from '../../../tools/remote/mcp-tool-filter.js';
import { checkRemoteUrl } from '../../../tools/remote/remote-allowlist.js';
import { RemoteMcpServer } from '../../../tools/remote/remote-mcp-server.js';
import { listedTools, remoteTools, type McpToolChoices } from '../../../tools/remote/remote-tools.js';
import { BUILTIN_SERVER } from '../../../tools/tool-policy.js';
import type { Toolbox } from '../../../tools/toolbox.js';
import type { CallVerdict, TurnTools } from '../../../tools/turn-tools.js';
import type { AgentConfig } from '../../../agents/agent-directory.js';
import type { AgentTurnDeps } from '../../../agents/agent-turn.js';
import type { ResponseMcpListTools } from './response-record.js';

/**
 * A request's `mcp` tool (OpenAI's Tool.Mcp, https://platform.openai.com/docs/guides/tools-remote-mcp):
 * a configured server named by its label, or a remote one by its URL.
 */
export interface McpToolRequest extends McpToolChoices {
  /** names the tool in errors: `tools[2]` */
  param: string;
  serverLabel: string;
  serverUrl?: string;
  /** sent to a remote server with each request; never logged or stored */
  headers?: Record<string, string>;
  serverDescription?: string;
}

/** a request's server, checked against config: where its tools come from */
export type CheckedServer = (McpToolRequest & { kind: 'configured' }) | (McpToolRequest & { kind: 'remote'; url: URL });

export interface ResponseTools {
  /** the turn's server-side tools, when there are any */
  tools?: TurnTools;
  /** the `mcp_list_tools` items of servers the conversation has not listed before */
  listings: ResponseMcpListTools[];
  /** the labels the conversation has listed, this response's included */
  listed: string[];
  close(): Promise<void>;
}

interface ToolsDeps {
  config: HeraldConfig;
  toolbox?: Toolbox;
}

const notAllowed = (param: string, message: string) => new HeraldError('HERALD_MCP_SERVER_NOT_ALLOWED', message, { param });

/**
 * Checks a request's `mcp` tools against config before anything is connected, so a request can
 * reach only a server the operator allows: a `server_label` alone names a configured server
 * (tools.mcpServers, or `herald`) that the agent may use; a `server_url` must lie under a prefix
 * of tools.remoteAllowlist. Anything else is a 400 naming the field.
 */
export function checkMcpTools(deps: ToolsDeps, agent: AgentConfig, requests: readonly McpToolRequest[]): CheckedServer[] {
  const { mcpServers, remoteAllowlist } = deps.config.tools;
  const configured = (label: string) => Object.hasOwn(mcpServers, label) || label === BUILTIN_SERVER;
  const labels = new Set<string>();
  return requests.map((request) => {
    const { param, serverLabel: label } = request;
    if (labels.has(label)) throw new HeraldError('HERALD_INVALID_FIELD', `${param}.server_label: "${label}" names two mcp tools of this request`, { param: `${param}.server_label` });
    labels.add(label);
    if (request.serverUrl === undefined) {
      if (!configured(label) || !deps.toolbox) {
        throw notAllowed(`${param}.server_label`, `${param}.server_label: "${label}" names no configured MCP server (tools.mcpServers); a remote server needs a server_url under tools.remoteAllowlist`);
      }
      if (!agent.tools?.servers.includes(label)) {
        throw notAllowed(`${param}.server_label`, `${param}.server_label: the agent "${agent.id}" may not use the MCP server "${label}" (its tools.servers)`);
      }
      if (request.headers) throw new HeraldError('HERALD_INVALID_FIELD', `${param}.headers: a configured server's headers are set in its config`, { param: `${param}.headers` });
      return { ...request, kind: 'configured' as const };
    }
    if (configured(label)) {
      throw new HeraldError('HERALD_INVALID_FIELD', `${param}.server_label: "${label}" names a configured MCP server; leave server_url out to use it`, { param: `${param}.server_label` });
    }
    const checked = checkRemoteUrl(request.serverUrl, remoteAllowlist);
    if (!checked.ok) throw notAllowed(`${param}.server_url`, `${param}.server_url ${checked.reason}`);
    return { ...request, kind: 'remote' as const, url: checked.url };
  });
}

/**
 * The tools of a Responses turn: the agent's own (granted by config, run without a person, since
 * no operator waits on an API request: a call config holds for approval is refused), a configured
 * server the request names (narrowed by `allowed_tools`, held for the client's approval as
 * `require_approval` says), and each remote server, connected for this turn and listed once.
 * A server that cannot be listed has an `mcp_list_tools` item with its error, and no tools.
 * `canApprove` false (a response that is not stored cannot be continued): a call that would
 * wait for approval is refused, and the model told why.
 */
export async function openResponseTools(
  deps: ToolsDeps,
  agent: AgentConfig,
  servers: readonly CheckedServer[],
  context: { listedBefore: readonly string[]; canApprove: boolean; signal?: AbortSignal },
): Promise<ResponseTools> {
  const { tools: limits } = deps.config;
  const granted = deps.toolbox?.grant(agent, { outside: false, canWait: false });
  const named = new Set(servers.filter((s) => s.kind === 'configured').map((s) => s.serverLabel));
  const remotes = await Promise.all(
    servers.map((s) =>
      s.kind === 'remote'
        ? RemoteMcpServer.connect({
            label: s.serverLabel,
            url: s.url,
            headers: s.headers ?? {},
            allowed: (url) => checkRemoteUrl(url.href, limits.remoteAllowlist).ok,
            timeoutMs: limits.callTimeoutSeconds * 1000,
            maxTools: limits.maxToolsPerServer,
            maxResultChars: limits.maxResultChars,
            description: s.serverDescription,
            signal: context.signal,
          })
        : undefined,
    ),
  );
  const groups: TurnTools[] = [];
  const listings: ResponseMcpListTools[] = [];
  const listed = new Set(context.listedBefore);
  servers.forEach((server, i) => {
    const remote = remotes[i];
    let group: TurnTools | undefined;
    if (remote) {
      group = remoteTools(remote, server, { timeoutMs: limits.callTimeoutSeconds * 1000, maxToolCalls: limits.maxToolCalls, maxResultChars: limits.maxResultChars });
    } else if (granted) {
      const label = server.serverLabel;
      group = narrowedTools(
        granted,
        (spec) => spec.server === label && isAllowed(server.allowedTools, spec),
        (spec, own) => stricter(own, needsApproval(server.requireApproval, spec)),
        // a call approved while the server was up, resumed while it is down: failed, naming why, not refused
        (down, name) => down === label && mayBeAllowed(server.allowedTools, down, name),
      );
    }
    if (group) groups.push(group);
    const tools = group ? listedTools(group) : [];
    if (listed.has(server.serverLabel) && !remote?.error) return;
    listings.push({ type: 'mcp_list_tools', id: `mcpl_${randomHex(16)}`, server_label: server.serverLabel, tools, error: remote?.error ?? null });
    if (!remote?.error) listed.add(server.serverLabel);
  });
  if (granted) groups.push(narrowedTools(granted, (spec) => !named.has(spec.server), undefined, (down) => !named.has(down)));
  // a server the request names counts while it is down (no tools listed): a paused turn resumed
  // with it tells each approved call of it why its server is not available (TurnTools.unavailable)
  const merged = groups.some((g) => g.specs.length) || servers.length ? mergedTools(groups, limits) : undefined;
  return {
    tools: merged && !context.canApprove ? withoutApprovals(merged) : merged,
    listings,
    listed: [...listed],
    close: async () => {
      await Promise.all(remotes.map((r) => r?.close()));
    },
  };
}

/** the verdict config gives, made to wait for the client when the request asks it to */
const stricter = (own: CallVerdict, clientApproves: boolean): CallVerdict => (own.kind === 'run' && clientApproves ? { kind: 'approve' } : own);

function withoutApprovals(tools: TurnTools): TurnTools {
  return narrowedTools(
    tools,
    () => true,
    (spec, own) => (own.kind === 'approve' ? { kind: 'refuse', reason: `${spec.name} needs the client's approval, which a response that is not stored (store: false) cannot wait for` } : own),
    () => true,
  );
}

/**
 * The turn's deps with its metrics counting a request's remote servers and their tools as one
 * (`server="remote", tool="*"`): a request names its servers and they name their tools, and no
 * client may grow the metrics' labels.
 */
export function countingRemoteAsOne(deps: AgentTurnDeps, servers: readonly CheckedServer[]): AgentTurnDeps {
  const remote = new Set(servers.filter((s) => s.kind === 'remote').map((s) => s.serverLabel));
  const counted = deps.onToolCallFinished;
  if (!remote.size || !counted) return deps;
  return { ...deps, onToolCallFinished: (server, tool, ...rest) => (remote.has(server) ? counted('remote', '*', ...rest) : counted(server, tool, ...rest)) };
}
