/**
 * The tools benchmark's Streamable HTTP MCP server, in its own process so its CPU is its own: the
 * SDK's McpServer and StreamableHTTPServerTransport, one per session as the SDK's README shows,
 * with the one tool `echo` as @modelcontextprotocol/server-everything has it (a `message` string
 * in, `Echo: <message>` out, read-only).
 * Usage: `node --import tsx bench/mcp-echo-server.ts`; prints `listening on <url>`.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

const transports = new Map<string, StreamableHTTPServerTransport>();

const server = http.createServer(async (req, res) => {
  const sessionId = req.headers['mcp-session-id'];
  let transport = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
  if (!transport) {
    const created = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => void transports.set(id, created) });
    created.onclose = () => void (created.sessionId && transports.delete(created.sessionId));
    const mcp = new McpServer({ name: 'bench-echo', version: '1.0.0' });
    mcp.registerTool(
      'echo',
      { title: 'Echo Tool', description: 'Echoes back the input string', inputSchema: { message: z.string().describe('Message to echo') }, annotations: { readOnlyHint: true, destructiveHint: false } },
      async ({ message }) => ({ content: [{ type: 'text', text: `Echo: ${message}` }] }),
    );
    await mcp.connect(created);
    transport = created;
  }
  await transport.handleRequest(req, res);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`));
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
