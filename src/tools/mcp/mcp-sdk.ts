/**
 * The MCP SDK's client, loaded with the first connection rather than with herald: its modules
 * (the client, both transports, the protocol's zod schemas) cost about a quarter of herald's
 * start-up CPU and 13 MB of resident memory, which a herald with no MCP server never pays and one
 * with servers pays while they connect, in the background (docs/performance.md, "Tools").
 */
export interface McpSdk {
  Client: typeof import('@modelcontextprotocol/sdk/client/index.js').Client;
  /** the stdio transport's parts: herald starts the process itself (stdio-group-transport.ts) */
  getDefaultEnvironment: typeof import('@modelcontextprotocol/sdk/client/stdio.js').getDefaultEnvironment;
  deserializeMessage: typeof import('@modelcontextprotocol/sdk/shared/stdio.js').deserializeMessage;
  serializeMessage: typeof import('@modelcontextprotocol/sdk/shared/stdio.js').serializeMessage;
  StreamableHTTPClientTransport: typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPClientTransport;
  StreamableHTTPError: typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPError;
  McpError: typeof import('@modelcontextprotocol/sdk/types.js').McpError;
  ErrorCode: typeof import('@modelcontextprotocol/sdk/types.js').ErrorCode;
  ToolListChangedNotificationSchema: typeof import('@modelcontextprotocol/sdk/types.js').ToolListChangedNotificationSchema;
  ElicitRequestSchema: typeof import('@modelcontextprotocol/sdk/types.js').ElicitRequestSchema;
  CallToolResultSchema: typeof import('@modelcontextprotocol/sdk/types.js').CallToolResultSchema;
  JSONRPCMessageSchema: typeof import('@modelcontextprotocol/sdk/types.js').JSONRPCMessageSchema;
  isJSONRPCResultResponse: typeof import('@modelcontextprotocol/sdk/types.js').isJSONRPCResultResponse;
  /** the event stream parser the SDK's transport uses, fed without its web streams (sse-reader.ts) */
  createParser: typeof import('eventsource-parser').createParser;
}

let loaded: McpSdk | undefined;
let loading: Promise<McpSdk> | undefined;

/** the SDK, loaded once */
export function loadMcpSdk(): Promise<McpSdk> {
  loading ??= Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('@modelcontextprotocol/sdk/shared/stdio.js'),
    import('eventsource-parser'),
  ]).then(
    ([client, stdio, http, types, framing, sse]) =>
      (loaded = {
        Client: client.Client,
        getDefaultEnvironment: stdio.getDefaultEnvironment,
        deserializeMessage: framing.deserializeMessage,
        serializeMessage: framing.serializeMessage,
        StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
        StreamableHTTPError: http.StreamableHTTPError,
        McpError: types.McpError,
        ErrorCode: types.ErrorCode,
        ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
        ElicitRequestSchema: types.ElicitRequestSchema,
        CallToolResultSchema: types.CallToolResultSchema,
        JSONRPCMessageSchema: types.JSONRPCMessageSchema,
        isJSONRPCResultResponse: types.isJSONRPCResultResponse,
        createParser: sse.createParser,
      }),
    (error: unknown) => {
      // a later connection tries again
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** the SDK if a connection has loaded it: until then, no error can be one of its classes */
export const loadedMcpSdk = (): McpSdk | undefined => loaded;
