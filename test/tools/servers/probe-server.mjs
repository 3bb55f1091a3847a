// A stdio MCP server made with the SDK's McpServer, for the probes of herald's MCP client:
// its one tool's name comes from PROBE_TOOL; PROBE_SECRET is printed on stderr at start (a server
// that leaks its token into its log); the tool `huge` writes one 50 MB line on stdout.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const server = new McpServer({ name: 'probe', version: '1.0.0' });
const name = process.env.PROBE_TOOL ?? 'probe';
server.registerTool(name, { description: `the ${name} tool of ${process.env.PROBE_LABEL ?? 'a probe'}` }, async () => ({
  content: [{ type: 'text', text: `${process.env.PROBE_LABEL ?? 'probe'} answered; token ${process.env.PROBE_SECRET ?? 'none'}` }],
}));
server.registerTool('huge', { description: 'answers with one 50 MB line' }, async () => {
  process.stdout.on('error', () => undefined);
  const line = `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"${'x'.repeat(50 * 1024 * 1024)}"}}\n`;
  // whether herald read it all (ok) or stopped reading it (EPIPE) is told on stderr
  process.stdout.write(line, (error) => process.stderr.write(`huge write: ${error ? error.code : 'ok'}\n`));
  return new Promise(() => undefined);
});
if (process.env.PROBE_SECRET) process.stderr.write(`starting with token ${process.env.PROBE_SECRET}\n`);
await server.connect(new StdioServerTransport());
