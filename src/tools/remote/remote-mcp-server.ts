import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { callFailure } from '../mcp/call-error.js';
import { resultText } from '../mcp/call-result.js';
import { faultMessage } from '../mcp/fault-message.js';
import { loadMcpSdk } from '../mcp/mcp-sdk.js';
import { listServerTools } from '../mcp/tool-listing.js';
import type { ToolCallOptions, ToolResult, ToolSpec } from '../tool-spec.js';
import { guardedFetch } from './guarded-fetch.js';

/** a server's tool as a Responses `mcp_list_tools` item shows it (ResponseOutputItem.McpListTools.Tool) */
export interface ListedTool {
  name: string;
  description: string | null;
  input_schema: unknown;
  annotations: unknown;
}

/** a tool as its `mcp_list_tools` item shows it: its MCP annotations reduced to what herald keeps of them */
export const listedToolOf = (spec: ToolSpec): ListedTool => ({
  name: spec.tool,
  description: spec.description || null,
  input_schema: spec.inputSchema,
  annotations: spec.readOnly ? { readOnlyHint: true } : null,
});

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
  maxResultChars: number;
  /** said to the model with each tool's description */
  description?: string;
  signal?: AbortSignal;
}

const CLIENT_INFO = { name: 'herald', version: '1' };

/**
 * One request's remote MCP server (the Responses API's `mcp` tool with a `server_url`): connected
 * with the SDK's Streamable HTTP client for the one turn, its tools read once (as a configured
 * server's: paged, capped at tools.maxToolsPerServer), closed with the turn. It never throws: a
 * server that cannot be reached or listed is a connection with `error` and no tools, and a failed
 * call is an error result the model is told of.
 */
export class RemoteMcpServer {
  private constructor(
    private readonly options: RemoteServerOptions,
    private readonly client: Client | undefined,
    readonly specs: ToolSpec[],
    readonly error?: string,
  ) {}

  static async connect(options: RemoteServerOptions): Promise<RemoteMcpServer> {
    const limits = { timeout: options.timeoutMs, signal: options.signal };
    let client: Client | undefined;
    try {
      const { Client, StreamableHTTPClientTransport } = await loadMcpSdk();
      client = new Client(CLIENT_INFO, { capabilities: {} });
      await client.connect(new StreamableHTTPClientTransport(options.url, { requestInit: { headers: options.headers }, fetch: guardedFetch(options.allowed) }), limits);
      const { specs } = await listServerTools(client, options.label, options.maxTools, limits);
      const about = options.description && ` (server ${options.label}: ${options.description})`;
      return new RemoteMcpServer(options, client, about ? specs.map((s) => ({ ...s, description: s.description + about })) : specs);
    } catch (error) {
      await client?.close().catch(() => undefined);
      return new RemoteMcpServer(options, undefined, [], `the server ${options.label} could not be listed: ${faultMessage(error)}`);
    }
  }

  get label(): string {
    return this.options.label;
  }

  /** calls one of its tools; the server's faults come back as an error result, never a throw */
  async call(spec: ToolSpec, args: Record<string, unknown>, options: ToolCallOptions): Promise<ToolResult> {
    const maxChars = this.options.maxResultChars;
    if (!this.client) return { text: this.error ?? `the server ${this.label} is not connected`, isError: true };
    try {
      const result = await this.client.callTool({ name: spec.tool, arguments: args }, undefined, { timeout: options.timeoutMs, signal: options.signal });
      return resultText(result as CallToolResult, maxChars);
    } catch (error) {
      const { text } = callFailure(error, { server: this.label, stdio: false, timeoutMs: options.timeoutMs, aborted: options.signal?.aborted === true, maxChars });
      return { text, isError: true };
    }
  }

  async close(): Promise<void> {
    await this.client?.close().catch(() => undefined);
  }
}
