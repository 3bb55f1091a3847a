import { MCPServerStreamableHttp } from '@openai/agents';
import { afterEach, describe, expect, it } from 'vitest';
import { API_KEY, baseConfig, startHerald, type RunningHerald } from '../helpers/start-herald.js';
import { startTicketServer, type TicketServer } from '../tools/ticket-server.js';

/**
 * The OpenAI Agents SDK's MCP client (@openai/agents, MCPServerStreamableHttp) against /mcp with an
 * API key, as an agent built with it would use herald: the key's tools listed, a granted one called.
 */
let herald: RunningHerald | undefined;
let tickets: TicketServer | undefined;
afterEach(async () => {
  await herald?.stop();
  await tickets?.close();
  herald = tickets = undefined;
});

describe("the OpenAI Agents SDK's MCP client against /mcp", { timeout: 60_000 }, () => {
  it("lists the key's tools and calls a granted one", async () => {
    tickets = await startTicketServer();
    herald = await startHerald(
      baseConfig({
        platform: { mcp: { enabled: true }, apiKeys: [{ name: 'agents-sdk', key: API_KEY, agents: ['main'], tools: { servers: ['tickets'], allow: ['tickets__lookup_ticket'] } }] },
        tools: { mcpServers: { tickets: { url: tickets.url } } },
      }),
    );
    const server = new MCPServerStreamableHttp({ url: `${herald.url}/mcp`, name: 'herald', requestInit: { headers: { authorization: `Bearer ${API_KEY}` } } });
    await server.connect();
    try {
      expect((await server.listTools()).map((t) => t.name).sort()).toEqual(['ask_main', 'search_documents', 'tickets__lookup_ticket']);
      const result = await server.callTool('tickets__lookup_ticket', { id: 'T3' });
      expect(JSON.stringify(result)).toContain('ticket T3 is open');
      expect(tickets.invocations).toEqual([{ tool: 'lookup_ticket', id: 'T3' }]);
    } finally {
      await server.close();
    }
  });
});
