import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolCallOptions, ToolResult, ToolSpec } from '../tool-spec.js';
import { toolName } from '../tool-name.js';
import { guardedFetch } from './guarded-fetch.js';

/** a server's tool as a Responses `mcp_list_tools` item shows it (ResponseOutputItem.McpListTools.Tool) */
export interface ListedTool {
  name: string;
  description: string | null;
  input_schema: unknown;
  annotations: unknown;
}

export interface RemoteServerOptions {
  /** the request's `server_label`: the prefix of its tools' names */
  label: string;
  url: URL;
  /** sent with every request to the server; never logged or stored */
  headers: Record<string, string>;
  /** every URL the connection requests (a redirect's too) must pass this */
  allowed: (url: URL) => boolean;
  /** the time limit of connecting and listing */
  timeoutMs: number;
  maxTools: number;
  /** said to the model with each tool's description */
  description?: string;
  signal?: AbortSignal;
}

const CLIENT_INFO = { name: 'herald', version: '1' };
const MAX_DESCRIPTION_CHARS = 2048;
const MAX_SCHEMA_CHARS = 32_000;
const MAX_FAULT_CHARS = 500;

/**
 * One request's remote MCP server (the Responses API's `mcp` tool with a `server_url`): connected
 * with the SDK's Streamable HTTP client for the one turn, its tools read once, closed with the
 * turn. It never throws: a server that cannot be reached or listed is a connection with `error`
 * and no tools, and a failed call is an error result the model is told of.
 */
export class RemoteMcpServer {
  private constructor(
    readonly label: string,
    private readonly client: Client | undefined,
    readonly specs: ToolSpec[],
    readonly listed: ListedTool[],
    readonly error?: string,
  ) {}

  static async connect(options: RemoteServerOptions): Promise<RemoteMcpServer> {
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    try {
      const transport = new StreamableHTTPClientTransport(options.url, { requestInit: { headers: options.headers }, fetch: guardedFetch(options.allowed) });
      await client.connect(transport, { timeout: options.timeoutMs, signal: options.signal });
      const { tools } = await client.listTools(undefined, { timeout: options.timeoutMs, signal: options.signal });
      const kept = tools.filter((t) => t.execution?.taskSupport !== 'required').slice(0, options.maxTools);
      const specs: ToolSpec[] = [];
      const names = new Set<string>();
      for (const tool of kept) {
        const spec = specOf(options.label, tool, names, options.description);
        names.add(spec.name);
        specs.push(spec);
      }
      const listed = kept.map((t) => ({ name: t.name, description: t.description ?? null, input_schema: t.inputSchema, annotations: t.annotations ?? null }));
      return new RemoteMcpServer(options.label, client, specs, listed);
    } catch (error) {
      await client.close().catch(() => undefined);
      return new RemoteMcpServer(options.label, undefined, [], [], `the server ${options.label} could not be listed: ${faultMessage(error)}`);
    }
  }

  /** calls one of its tools; the server's faults come back as an error result, never a throw */
  async call(spec: ToolSpec, args: Record<string, unknown>, options: ToolCallOptions): Promise<ToolResult> {
    if (!this.client) return { text: this.error ?? `the server ${this.label} is not connected`, isError: true };
    try {
      const result = (await this.client.callTool({ name: spec.tool, arguments: args }, undefined, { timeout: options.timeoutMs, signal: options.signal })) as CallToolResult;
      return resultOf(result);
    } catch (error) {
      return { text: `the call to the server ${this.label} failed: ${faultMessage(error)}`, isError: true };
    }
  }

  async close(): Promise<void> {
    await this.client?.close().catch(() => undefined);
  }
}

function specOf(label: string, tool: Tool, taken: Set<string>, serverDescription: string | undefined): ToolSpec {
  let name = toolName(label, tool.name);
  // two tools whose names differ only in characters a function name cannot have
  if (taken.has(name)) name = toolName(label, tool.name, true);
  const annotations = tool.annotations;
  const description = cut(tool.description ?? tool.title ?? annotations?.title ?? '', MAX_DESCRIPTION_CHARS);
  const schema = tool.inputSchema as Record<string, unknown>;
  return {
    name,
    server: label,
    tool: tool.name,
    description: serverDescription ? `${description} (server ${label}: ${cut(serverDescription, 512)})` : description,
    // a server's schema goes into every prompt that offers its tools: a huge one is replaced by an open object
    inputSchema: JSON.stringify(schema).length > MAX_SCHEMA_CHARS ? { type: 'object' } : schema,
    readOnly: annotations?.readOnlyHint === true && annotations.destructiveHint !== true,
  };
}

/** a tool's result as the model reads it: text items as they are, others named with their kind */
function resultOf(result: CallToolResult): ToolResult {
  const items = Array.isArray(result.content) ? result.content : [];
  const parts = items.map((item) => (item.type === 'text' ? item.text : `[${item.type}]`));
  if (result.structuredContent !== undefined && !items.some((item) => item.type === 'text')) parts.push(JSON.stringify(result.structuredContent));
  return { text: parts.length ? parts.join('\n') : '(no content)', isError: result.isError === true };
}

/** what went wrong, in one short line (a server writes part of it: an HTTP error's body) */
function faultMessage(error: unknown): string {
  let message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : undefined;
  if (cause && !message.includes(cause)) message = `${message} (${cause})`;
  return cut(message, MAX_FAULT_CHARS);
}

const cut = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);
