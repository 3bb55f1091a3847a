import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { API_KEY, baseConfig, startHerald, type RunningHerald } from '../helpers/start-herald.js';
import { startTicketServer, type TicketServer } from '../tools/ticket-server.js';

/**
 * The MCP Inspector's CLI (@modelcontextprotocol/inspector-cli), a client nobody at herald wrote,
 * against /mcp over Streamable HTTP with an API key: it lists the key's tools and calls a granted
 * one, which reaches the real MCP server upstream.
 */
const CLI = path.join(path.dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector-cli/package.json')), 'build/index.js');
const run = promisify(execFile);
let herald: RunningHerald | undefined;
let tickets: TicketServer | undefined;
afterEach(async () => {
  await herald?.stop();
  await tickets?.close();
  herald = tickets = undefined;
});

/** run from its build folder: it finds its own package.json (its client name) by a path relative to the working directory */
const inspector = async (url: string, ...args: string[]) => JSON.parse((await run(process.execPath, [CLI, `${url}/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${API_KEY}`, ...args], { timeout: 60_000, cwd: path.dirname(CLI) })).stdout) as Record<string, unknown>;

describe("the MCP Inspector's CLI against /mcp", { timeout: 120_000 }, () => {
  it('lists the key\'s tools and calls a granted one', async () => {
    tickets = await startTicketServer();
    herald = await startHerald(
      baseConfig({
        platform: { mcp: { enabled: true }, apiKeys: [{ name: 'inspector', key: API_KEY, agents: ['main'], tools: { servers: ['tickets'], allow: ['tickets__lookup_ticket'] } }] },
        tools: { mcpServers: { tickets: { url: tickets.url } } },
      }),
    );
    const listed = (await inspector(herald.url, '--method', 'tools/list')) as { tools: { name: string }[] };
    expect(listed.tools.map((t) => t.name).sort()).toEqual(['ask_main', 'search_documents', 'tickets__lookup_ticket']);
    const called = await inspector(herald.url, '--method', 'tools/call', '--tool-name', 'tickets__lookup_ticket', '--tool-arg', 'id=T5');
    expect(called).toMatchObject({ content: [{ type: 'text', text: 'ticket T5 is open' }] });
    expect(tickets.invocations).toEqual([{ tool: 'lookup_ticket', id: 'T5' }]);
  });
});
