import path from 'node:path';
import type { Server } from 'node:http';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenGateway } from '../../src/http/server/gateway-server.js';
import { startToolCallingModel, type ToolCallingModel } from '../helpers/fake-tool-calling-model.js';
import { baseConfig, bootHerald, eventually, hookHeaders, type HeraldUnderTest } from '../helpers/start-herald.js';
import { freePort } from '../helpers/free-port.js';
import { startOAuthMcpServer, type OAuthMcpServer } from '../../bench/oauth-mcp-server.js';
import { launchChromium, signIn, SHOTS, succeededRun } from './chromium.js';

/**
 * A person signs in to an MCP server that asks for OAuth 2.1, from the console in Chromium: the
 * Overview shows the server waiting (needs_authorization) with a Sign in button; the button sends
 * the browser to the authorization server (the SDK's mcpAuthRouter in oauth-mcp-server.ts, whose
 * demo consent answers at once with a redirect, which Chromium follows), which sends it back to
 * herald's /oauth/callback; back in the console, the server is ready and its tools are offered.
 */
let server: OAuthMcpServer;
let model: ToolCallingModel;
let herald: HeraldUnderTest;
let listening: Server;
let url: string;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  server = await startOAuthMcpServer();
  model = await startToolCallingModel();
  // the browser comes back to gateway.publicUrl: the address this herald listens on
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  herald = await bootHerald(
    baseConfig({
      gateway: { publicUrl: url },
      tools: { oauth: { encryptionKey: 'console-sign-in-key-0123456789' }, mcpServers: { crm: { url: server.url } } },
      models: { providers: { fake: { api: 'openai', baseUrl: model.url, apiKey: 'sk-fake' } } },
      agents: { defaults: { model: 'fake/tool-model' }, list: [{ id: 'ops', tools: { servers: ['crm'] } }] },
    }),
  );
  listening = await listenGateway(herald.gateway, '127.0.0.1', port);
  ({ context, page } = await launchChromium());
  await signIn(page, url);
}, 60_000);

afterAll(async () => {
  await context?.close();
  listening?.closeAllConnections();
  await new Promise((resolve) => listening?.close(resolve));
  await herald?.stop();
  await server?.close();
  await model?.close();
});

/** a hook run of the agent whose tools are crm's, settled: its record as GET /admin/runs/:id answers it */
async function hookRun(): Promise<Record<string, any>> {
  const sent = await fetch(`${url}/hooks/agent`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ message: 'Who am I in the CRM?', deliver: false }) });
  expect(sent.status).toBe(202);
  const { runId } = (await sent.json()) as { runId: string };
  return succeededRun(url, runId, 30_000);
}

const state = () => herald.gateway.mcp.health().find((h) => h.server === 'crm')?.state;
const toolServers = () => page.locator('section[aria-label="Tool servers"]');
const row = () => toolServers().locator('tbody tr').filter({ hasText: 'crm' }).first();

describe('signing in to an MCP server from the console', { timeout: 90_000 }, () => {
  it('shows the server waiting with a Sign in button (and a run that went without its tools says so), signs in through the authorization server, and shows it ready', async () => {
    await eventually(() => state() === 'needs_authorization', 20_000);
    // the Tool servers table and the Trouble list both offer the sign-in
    await expect.poll(() => row().innerText({ timeout: 1000 }).catch(() => ''), { timeout: 15_000 }).toContain('needs_authorization');
    await expect(row().getByRole('button', { name: 'Sign in to crm' }).isVisible()).resolves.toBe(true);
    await expect(page.locator('section[aria-label="Trouble"]').getByRole('button', { name: 'Sign in to crm' }).isVisible()).resolves.toBe(true);
    await page.screenshot({ path: path.join(SHOTS, 'overview-sign-in.png'), fullPage: true });

    // a run of an agent whose tools wait for the sign-in says so, in its record and on its page
    const waiting = await hookRun();
    expect(waiting.awaitingSignIn).toEqual(['crm']);
    expect(model.requests.at(-1).tools).toBeUndefined();
    await page.goto(`${url}/console#/runs/${waiting.id}`);
    const fact = page.locator('dt', { hasText: 'Sign-in needed' }).locator('xpath=following-sibling::dd[1]');
    await expect.poll(() => fact.innerText({ timeout: 1000 }).catch(() => ''), { timeout: 15_000 }).toMatch(/^crm waits for a person to sign in: its tools were not offered/);
    await fact.getByRole('link', { name: 'Sign in on the Overview' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();

    await row().getByRole('button', { name: 'Sign in to crm' }).click();
    // the authorization server's redirect, followed by the browser, ends on herald's callback page
    await page.waitForURL((u) => u.pathname === '/oauth/callback', { timeout: 30_000 });
    await expect(page.getByRole('heading', { name: 'Signed in to crm' }).isVisible()).resolves.toBe(true);
    expect(server.authorizations).toEqual([expect.objectContaining({ scope: 'mcp:tools', resource: server.url })]);

    await page.getByRole('link', { name: 'console' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await expect.poll(() => row().innerText({ timeout: 1000 }).catch(() => ''), { timeout: 20_000 }).toMatch(/^crm\s+ready\s+3\b/);
    expect(await row().getByRole('button').count()).toBe(0);
    expect(herald.gateway.mcp.tools().map((t) => t.name).sort()).toEqual(['crm__admin_tool', 'crm__echo', 'crm__whoami']);
    await page.screenshot({ path: path.join(SHOTS, 'overview-signed-in.png'), fullPage: true });
    // signed in: the next run is offered crm's tools, and its record names no server
    const after = await hookRun();
    expect(after.awaitingSignIn).toEqual([]);
    expect(model.requests.at(-1).tools.map((t: any) => t.function.name).sort()).toEqual(['crm__admin_tool', 'crm__echo', 'crm__whoami']);
  });

  it('says why on the page when the sign-in cannot start (no tools.oauth.encryptionKey to keep it with)', async () => {
    const keyless = await bootHerald(baseConfig({ tools: { mcpServers: { crm: { url: server.url } } } }));
    const port = await freePort();
    const other = await listenGateway(keyless.gateway, '127.0.0.1', port);
    try {
      await eventually(() => keyless.gateway.mcp.health().find((h) => h.server === 'crm')?.state === 'needs_authorization', 20_000);
      // cookies are the host's, whatever its port: the first herald's session means nothing here
      await context.clearCookies();
      await signIn(page, `http://127.0.0.1:${port}`);
      const button = row().getByRole('button', { name: 'Sign in to crm' });
      await button.click();
      await expect.poll(() => row().getByRole('alert').innerText({ timeout: 1000 }).catch(() => ''), { timeout: 15_000 }).toContain('set tools.oauth.encryptionKey first');
      expect(new URL(page.url()).port).toBe(String(port));
      expect(await button.isEnabled()).toBe(true);
    } finally {
      other.closeAllConnections();
      await new Promise((resolve) => other.close(resolve));
      await keyless.stop();
    }
  });
});
