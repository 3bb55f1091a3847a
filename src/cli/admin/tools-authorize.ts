import { parseArgs } from 'node:util';
import type { CliIo } from '../io/cli-io.js';
import { gatewayAnswer, type AdminClient } from './admin-client.js';

/**
 * `herald tools authorize NAME`: asks the running gateway to start a person's sign-in to an MCP
 * server that asks for OAuth (POST /admin/tools/servers/NAME/authorize) and prints the URL to
 * open, alone on stdout (a script may take it); how to finish goes to stderr. Every error line
 * names the server.
 */
export async function toolsAuthorizeCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { config: { type: 'string', short: 'c' }, url: { type: 'string' }, json: { type: 'boolean' } } });
  const server = positionals[0];
  if (!server || positionals.length > 1) {
    io.err('herald tools authorize: one server name is needed (its name under tools.mcpServers). usage: herald tools authorize NAME');
    return 2;
  }
  const answer = await gatewayAnswer(`tools authorize ${server}`, values, io, (c: AdminClient) => c.call('POST', `/tools/servers/${encodeURIComponent(server)}/authorize`));
  if (typeof answer === 'number') return answer;
  const { authorizationUrl } = answer.body as { authorizationUrl: string };
  if (values.json) {
    io.out(JSON.stringify({ server, authorizationUrl }));
    return 0;
  }
  io.err(`Open this URL in a browser and sign in to ${server} (within 10 minutes):`);
  io.out(authorizationUrl);
  io.err(`The browser comes back to herald's /oauth/callback (gateway.publicUrl), which keeps the sign-in and connects ${server}.`);
  io.err(`Then ${server} is ready in the console's Overview and in GET /admin/overview.`);
  return 0;
}
