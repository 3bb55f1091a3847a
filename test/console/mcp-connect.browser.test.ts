import http from 'node:http';
import path from 'node:path';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, baseConfig, GATEWAY_TOKEN, startHerald, type RunningHerald } from '../helpers/start-herald.js';
import { connectorClient, connectorTransport, ConnectorAuth } from '../mcp-server/oauth-client.js';
import { launchChromium, SHOTS } from './chromium.js';

/**
 * A connector's sign-in through herald's OAuth (platform.mcp.oauth) with a person in Chromium:
 * the SDK's Client registers and sends the browser to /authorize, which lands on the console;
 * the person signs in with the gateway token, sees the client's name, picks an API key and
 * allows; the browser goes back to the client's redirect URI (a local page standing for the
 * connector's) with the code, and the client connects with the key's grants.
 */
let herald: RunningHerald;
let context: BrowserContext;
let page: Page;
let callback: http.Server;
let redirectUri: string;

beforeAll(async () => {
  herald = await startHerald(
    baseConfig({
      platform: {
        mcp: { enabled: true, oauth: { enabled: true } },
        apiKeys: [
          { name: 'support-desk', key: API_KEY, agents: ['main'] },
          { name: 'sales-desk', key: 'sk-sales-0123456789abcdef0123', agents: ['support'] },
        ],
      },
      agents: { list: [{ id: 'main', name: 'Main' }, { id: 'support', name: 'Support' }] },
    }),
  );
  callback = http.createServer((_req, res) => res.end('back at the connector'));
  await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
  redirectUri = `http://127.0.0.1:${(callback.address() as { port: number }).port}/callback`;
  ({ context, page } = await launchChromium());
}, 60_000);

afterAll(async () => {
  await context?.close();
  callback?.close();
  await herald?.stop();
});

describe('connecting an MCP client in Chromium', { timeout: 60_000 }, () => {
  it('signs in with the gateway token, picks a key, allows; the client gets that key\'s agents', async () => {
    const connector = new ConnectorAuth(redirectUri, 'Claude');
    await expect(connectorClient().connect(connectorTransport(herald.url, connector))).rejects.toThrow(UnauthorizedError);
    await page.goto(connector.opened[0]!.href);
    await page.getByLabel('Gateway token').fill(GATEWAY_TOKEN);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Connect an MCP client' }).waitFor();
    await expect.poll(() => page.locator('#client-name').innerText()).toBe('Claude');
    await page.getByLabel('API key').selectOption('sales-desk');
    await page.screenshot({ path: path.join(SHOTS, 'mcp-connect.png') });
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((url) => url.href.startsWith(redirectUri));
    const back = new URL(page.url());
    expect(back.searchParams.get('state')).toBe(connector.opened[0]!.searchParams.get('state'));

    const transport = connectorTransport(herald.url, connector);
    await transport.finishAuth(back.searchParams.get('code')!);
    const mcp = connectorClient();
    await mcp.connect(transport);
    expect((await mcp.listTools()).tools.map((t) => t.name).sort()).toEqual(['ask_support', 'search_documents']);
    await mcp.close();

    // the API keys page lists the client, and revokes it
    await page.goto(`${herald.url}/console#/keys`);
    const row = page.locator('main tr').filter({ hasText: 'Claude' });
    await expect.poll(() => row.innerText()).toContain('sales-desk');
    page.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: 'Revoke' }).click();
    await page.getByText("Revoked Claude's access.").waitFor();
    const refused = await fetch(`${herald.url}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${connector.saved!.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    expect(refused.status).toBe(401);
  });
});
