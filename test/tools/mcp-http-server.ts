import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

export interface McpHttpServer {
  url: string;
  /** the McpServer of each session, newest last */
  sessions: McpServer[];
  /** requests refused for a wrong or missing Authorization header */
  refused: number;
  close(): Promise<void>;
}

/**
 * A Streamable HTTP MCP server made with the SDK's own server (McpServer and
 * StreamableHTTPServerTransport, one per session as the SDK's README shows), on 127.0.0.1.
 * `port`: to take the place of one closed. `token`: requests without `Authorization: Bearer <token>` are refused with 401.
 * `resumable`: its streams' events kept (the SDK's in-memory event store), a client told to come back after 10 ms.
 */
export async function startMcpHttpServer(setup: (server: McpServer) => void, options: { token?: string; port?: number; resumable?: boolean } = {}): Promise<McpHttpServer> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const state: McpHttpServer = { url: '', sessions: [], refused: 0, close: async () => undefined };
  const server = http.createServer(async (req, res) => {
    if (options.token && req.headers.authorization !== `Bearer ${options.token}`) {
      state.refused++;
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    const sessionId = req.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
    if (!transport) {
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void transports.set(id, created),
        ...(options.resumable && { eventStore: new InMemoryEventStore(), retryInterval: 10 }),
      });
      const mcp = new McpServer({ name: 'test-http', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
      setup(mcp);
      state.sessions.push(mcp);
      await mcp.connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  state.close = async () => {
    for (const transport of transports.values()) await transport.close().catch(() => undefined);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return state;
}
