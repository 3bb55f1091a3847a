/**
 * The tools benchmark's MCP server that asks for OAuth 2.1, in its own process so its CPU is its
 * own: the server made with the SDK's server auth that the tests use too (oauth-mcp-server.ts beside it:
 * mcpAuthRouter, requireBearerAuth, a demo authorization server that consents at once, issues,
 * refreshes and rotates tokens) with its `echo` tool. Beside it, a control server for the bench:
 * `GET /url` (the MCP endpoint), `POST /expire` (access tokens stop working, as after their
 * expiry), `GET /stats` (token requests by grant).
 * Usage: `node --import tsx bench/mcp-oauth-echo-server.ts`; prints `listening on <control url>`.
 */
import http from 'node:http';
import { startOAuthMcpServer } from './oauth-mcp-server.js';

const server = await startOAuthMcpServer();
const control = http.createServer((req, res) => {
  if (req.method === 'POST' && req.url === '/expire') server.expireAccessTokens();
  const grants: Record<string, number> = {};
  for (const r of server.tokenRequests) grants[r.grant] = (grants[r.grant] ?? 0) + 1;
  const body = req.url === '/url' ? server.url : JSON.stringify({ grants, spentRefreshes: server.spentRefreshes });
  res.writeHead(200, { 'content-type': req.url === '/url' ? 'text/plain' : 'application/json' }).end(body);
});
control.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${(control.address() as { port: number }).port}/`));
process.on('SIGTERM', () => {
  control.close();
  void server.close().then(() => process.exit(0));
});
