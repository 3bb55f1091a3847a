import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolSpec } from '../tool-spec.js';
import { toolName } from '../tool-name.js';

/** a description longer than this is cut: a server's text goes into every prompt that offers its tools */
export const MAX_DESCRIPTION_CHARS = 2048;
/** an input schema larger than this (as JSON) is replaced by an open object schema, for the same reason */
export const MAX_SCHEMA_CHARS = 32_000;
/** pages read at most, whatever the server's cursors say (a server may page forever with empty pages) */
const MAX_PAGES = 100;

export interface ToolListing {
  specs: ToolSpec[];
  /** the tools (by their name at the server) it lists with `execution.taskSupport` "optional" or "required": callable as tasks */
  taskTools: ReadonlySet<string>;
  /** the server offered more than `maxTools`: the tools seen before the listing stopped */
  cut?: { listed: number };
}

/**
 * A server's tools as herald offers them: every page of tools/list read until `maxTools` are
 * kept, each made a ToolSpec. Tools callable only as tasks (`execution.taskSupport: "required"`)
 * are kept: herald calls them as tasks (task-call.ts).
 */
export async function listServerTools(client: Client, server: string, maxTools: number, options: RequestOptions): Promise<ToolListing> {
  const specs: ToolSpec[] = [];
  const names = new Set<string>();
  const taskTools = new Set<string>();
  let listed = 0;
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.listTools(cursor === undefined ? undefined : { cursor }, options);
    for (const tool of result.tools) {
      listed++;
      if (specs.length === maxTools) continue;
      const spec = toolSpec(server, tool, names);
      names.add(spec.name);
      specs.push(spec);
      const support = tool.execution?.taskSupport;
      if (support === 'optional' || support === 'required') taskTools.add(tool.name);
    }
    cursor = result.nextCursor;
    if (cursor === undefined) break;
    // one more tool past the cap is enough to know the list is cut
    if (listed > maxTools) return { specs, taskTools, cut: { listed } };
  }
  return listed > maxTools ? { specs, taskTools, cut: { listed } } : { specs, taskTools };
}

function toolSpec(server: string, tool: Tool, taken: Set<string>): ToolSpec {
  let name = toolName(server, tool.name);
  // two tools of one server whose names differ only in characters a function name cannot have
  if (taken.has(name)) name = toolName(server, tool.name, true);
  const annotations = tool.annotations;
  return {
    name,
    server,
    tool: tool.name,
    description: cut(tool.description ?? tool.title ?? annotations?.title ?? '', MAX_DESCRIPTION_CHARS),
    inputSchema: inputSchema(tool.inputSchema),
    readOnly: annotations?.readOnlyHint === true && annotations.destructiveHint !== true,
    ...(annotations?.idempotentHint === true && { idempotent: true }),
  };
}

/** the server's JSON Schema when it is an object schema of a reasonable size, otherwise one that takes any object */
function inputSchema(schema: unknown): Record<string, unknown> {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema) || (schema as { type?: unknown }).type !== 'object') return { type: 'object' };
  if (JSON.stringify(schema).length > MAX_SCHEMA_CHARS) return { type: 'object' };
  return schema as Record<string, unknown>;
}

const cut = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);
