import type { ToolSpec } from '../tool-spec.js';

/**
 * OpenAI's filter of an `mcp` tool's tools (Tool.Mcp.McpToolFilter in the official client's types;
 * https://platform.openai.com/docs/guides/tools-remote-mcp): by name, and by the MCP annotation
 * `readOnlyHint`. A filter matches a tool when every criterion it gives matches; one that gives
 * none matches nothing.
 */
export interface McpToolFilter {
  tool_names?: string[] | null;
  read_only?: boolean | null;
}

/** `require_approval`: "always", "never", or which tools always and never need approval */
export type McpApprovalPolicy = 'always' | 'never' | { always?: McpToolFilter | null; never?: McpToolFilter | null };

/** `allowed_tools`: tool names, or a filter */
export type McpAllowedTools = string[] | McpToolFilter;

export function matchesFilter(filter: McpToolFilter | null | undefined, spec: ToolSpec): boolean {
  if (!filter) return false;
  const names = filter.tool_names ?? undefined;
  const readOnly = filter.read_only ?? undefined;
  if (names === undefined && readOnly === undefined) return false;
  return (names === undefined || names.includes(spec.tool)) && (readOnly === undefined || readOnly === spec.readOnly);
}

/** the server's tools the request lets the model see: all, unless `allowed_tools` names or filters them */
export function isAllowed(allowed: McpAllowedTools | null | undefined, spec: ToolSpec): boolean {
  if (!allowed) return true;
  return Array.isArray(allowed) ? allowed.includes(spec.tool) : matchesFilter(allowed, spec);
}

/**
 * `isAllowed` for a tool of a server that is down, known by its function name only (its server
 * lists no tools while it is not connected): named in `allowed_tools`, or let through by a filter
 * whose `tool_names` name it. A `read_only` criterion cannot be checked without the tool's
 * annotations and excludes nothing: the client approved this very call when it was listed.
 */
export function mayBeAllowed(allowed: McpAllowedTools | null | undefined, server: string, name: string): boolean {
  if (!allowed) return true;
  const tool = name.startsWith(`${server}__`) ? name.slice(server.length + 2) : name;
  if (Array.isArray(allowed)) return allowed.includes(tool);
  const names = allowed.tool_names ?? undefined;
  if (names === undefined && (allowed.read_only ?? undefined) === undefined) return false;
  return names === undefined || names.includes(tool);
}

/**
 * Whether a call of `spec` waits for the client's approval. OpenAI's default is "always"; a tool
 * that the `always` filter matches needs approval even if `never` matches it too, and one that
 * neither matches needs it as by default.
 */
export function needsApproval(policy: McpApprovalPolicy | null | undefined, spec: ToolSpec): boolean {
  if (policy === 'never') return false;
  if (policy === undefined || policy === null || policy === 'always') return true;
  if (matchesFilter(policy.always, spec)) return true;
  return !matchesFilter(policy.never, spec);
}
