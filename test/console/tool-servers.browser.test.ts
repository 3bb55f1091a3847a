import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseConfig, eventually, startHerald, type RunningHerald } from '../helpers/start-herald.js';
import { launchChromium, signIn, SHOTS } from './chromium.js';

/**
 * The Overview's tool servers in Chromium: a real stdio MCP server ready, one whose command does
 * not exist failed with its error; a reload that changes them shows without reloading the page.
 */
const EVERYTHING = { command: path.resolve('node_modules/.bin/mcp-server-everything'), args: ['stdio'] };
let herald: RunningHerald;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  herald = await startHerald(baseConfig({ tools: { mcpServers: { everything: EVERYTHING, missing: { command: 'herald-no-such-mcp-server' } } } }));
  ({ context, page } = await launchChromium());
  await signIn(page, herald.url);
}, 60_000);

afterAll(async () => {
  await context?.close();
  await herald?.stop();
});

const health = (server: string) => herald.gateway.mcp.health().find((h) => h.server === server);
const tableText = () => page.locator('section[aria-label="Tool servers"]').innerText({ timeout: 1000 }).catch(() => '');
/** a row's cells: server, state, tools, since, restarts, last error */
const cells = async (server: string) => {
  const row = page.locator('section[aria-label="Tool servers"] tbody tr').filter({ hasText: server }).first();
  return (await row.innerText({ timeout: 1000 }).catch(() => '')).split('\t').map((c) => c.trim());
};

describe("the Overview's tool servers in Chromium", { timeout: 90_000 }, () => {
  it('lists a ready server with its tools and a failed one with its error, and follows a change live', async () => {
    await eventually(() => health('everything')?.state === 'ready' && health('missing')?.state === 'failed', 30_000);
    const tools = String(health('everything')!.tools);
    expect(Number(tools)).toBeGreaterThan(0);
    await expect.poll(() => cells('everything'), { timeout: 15_000 }).toEqual(['everything', 'ready', tools, expect.any(String), '0', '—']);
    const missing = await cells('missing');
    expect(missing.slice(0, 3)).toEqual(['missing', 'failed', '0']);
    expect(missing[5]).toContain('herald-no-such-mcp-server');
    expect(await page.getByRole('heading', { name: 'Tool servers' }).isVisible()).toBe(true);
    await page.screenshot({ path: path.join(SHOTS, 'overview-tool-servers.png'), fullPage: true });

    // the page stays open: a marker set now survives only if the page is not loaded again
    await page.evaluate(() => ((globalThis as { marker?: number }).marker = 1));
    const config = JSON.parse(fs.readFileSync(herald.configFile, 'utf8'));
    config.tools.mcpServers = { everything: EVERYTHING, second: EVERYTHING };
    fs.writeFileSync(herald.configFile, JSON.stringify(config));
    expect((await herald.gateway.reload('test')).ok).toBe(true);
    // the added server's state change reaches the page through the change feed
    await expect.poll(() => cells('second'), { timeout: 30_000 }).toEqual(['second', 'ready', tools, expect.any(String), '0', '—']);
    expect(await tableText()).not.toContain('missing');
    expect(await page.evaluate(() => (globalThis as { marker?: number }).marker)).toBe(1);
  });
});
