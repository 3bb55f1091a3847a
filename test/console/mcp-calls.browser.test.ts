import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, baseConfig, startHerald, type RunningHerald } from '../helpers/start-herald.js';
import { startTicketServer, type TicketServer } from '../tools/ticket-server.js';
import { launchChromium, SHOTS, signIn } from './chromium.js';

/**
 * The operator's view of MCP clients (issue 84, item 5): a governed call made through /mcp by the
 * SDK's Client named "probe-client 1.2.3" with the key support-desk shows on the console's Runs
 * page beside the agents' runs, with the client's name and version and the key, and its call
 * page (the approval page of the call) names them too. The real gateway on a socket, a real MCP
 * server upstream, Chromium.
 */
let herald: RunningHerald;
let tickets: TicketServer;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  tickets = await startTicketServer();
  herald = await startHerald(
    baseConfig({
      platform: { mcp: { enabled: true }, apiKeys: [{ name: 'support-desk', key: API_KEY, agents: ['main'], tools: { servers: ['tickets'], allow: ['tickets__lookup_ticket'] } }] },
      tools: { mcpServers: { tickets: { url: tickets.url } } },
    }),
  );
  ({ context, page } = await launchChromium());
}, 60_000);

afterAll(async () => {
  await context?.close();
  await herald?.stop();
  await tickets?.close();
});

describe("MCP clients' calls on the console", { timeout: 60_000 }, () => {
  it('a governed call by probe-client 1.2.3 shows its client, version and key on the Runs page and on its call page', async () => {
    const client = new Client({ name: 'probe-client', version: '1.2.3' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${herald.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${API_KEY}` } } }));
    expect(await client.callTool({ name: 'tickets__lookup_ticket', arguments: { id: '42' } })).toMatchObject({ content: [{ text: 'ticket 42 is open' }], isError: false });
    await client.close();
    expect(tickets.invocations).toEqual([{ tool: 'lookup_ticket', id: '42' }]);

    await signIn(page, herald.url);
    await page.goto(`${herald.url}/console#/runs`);
    const section = page.getByRole('region', { name: 'Calls from MCP clients' });
    const row = section.locator('tr').filter({ hasText: 'lookup_ticket' });
    await expect.poll(() => row.innerText()).toContain('probe-client 1.2.3');
    const text = await row.innerText();
    expect(text).toContain('support-desk');
    expect(text).toContain('tickets / lookup_ticket');
    expect(text).toContain('succeeded');
    await page.screenshot({ path: path.join(SHOTS, 'mcp-calls.png'), fullPage: true });

    await row.getByRole('link', { name: 'tickets / lookup_ticket' }).click();
    const facts = page.locator('dl.facts').first();
    await expect.poll(() => facts.innerText()).toContain('probe-client 1.2.3 (key support-desk');
    await page.screenshot({ path: path.join(SHOTS, 'mcp-call.png'), fullPage: true });
  });
});
