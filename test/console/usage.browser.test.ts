import path from 'node:path';
import OpenAI from 'openai';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { API_KEY, baseConfig, startHerald, type RunningHerald } from '../helpers/start-herald.js';
import { completion } from '../models/fake-openai.js';
import { launchChromium, signIn, SHOTS } from './chromium.js';

/** The Usage page in Chromium: the tokens of chat completions by agent and by key, refreshed live as calls are made. */
let herald: RunningHerald;
let model: FakeServer;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  // 3 + 2 tokens an answer, as its documented usage says (fake-openai.ts)
  model = await startFakeServer(() => ({ body: completion('Hello') }));
  herald = await startHerald(
    baseConfig({
      models: { providers: { fake: { api: 'openai', baseUrl: `${model.url}/v1` } }, prices: { 'fake/gpt-4o-mini': { input: 1_000_000, output: 2_000_000 } } },
      agents: { list: [{ id: 'sales', model: 'fake/gpt-4o-mini', budget: { tokensPerDay: 1_000_000 } }, { id: 'support' }] },
    }),
  );
  ({ context, page } = await launchChromium());
  await signIn(page, herald.url);
}, 60_000);

afterAll(async () => {
  await context?.close();
  await herald?.stop();
  await model?.close();
});

const mainText = () => page.locator('main').innerText({ timeout: 1000 }).catch(() => '');

describe('the Usage page in Chromium', { timeout: 60_000 }, () => {
  it('shows tokens and cost by agent, then by key per day, and counts a new call without a reload', async () => {
    const client = new OpenAI({ baseURL: `${herald.url}/v1`, apiKey: API_KEY, maxRetries: 0 });
    await client.chat.completions.create({ model: 'sales', messages: [{ role: 'user', content: 'hi' }] });
    await page.getByRole('link', { name: 'Usage', exact: true }).click();
    await page.getByRole('heading', { name: 'Usage' }).waitFor({ timeout: 10_000 });
    await expect.poll(mainText, { timeout: 10_000 }).toContain('5 tokens in 1 calls.');
    const row = page.locator('main tbody tr').first();
    // agent, calls, prompt, completion, total, estimated, cost (3 at 1 + 2 at 2)
    expect((await row.innerText()).split('\t').map((c) => c.trim())).toEqual(['sales', '1', '3', '2', '5', '—', '7.0000']);

    // a call made while the page is open is counted without a reload (the change feed)
    await client.chat.completions.create({ model: 'support', messages: [{ role: 'user', content: 'what is the refund policy' }] });
    await expect.poll(mainText, { timeout: 10_000 }).toContain('support');
    expect(await mainText()).toMatch(/\d+ tokens in 2 calls\./);

    await page.getByLabel('Group by').selectOption('key');
    await page.getByLabel('Per day').check();
    const today = new Date().toISOString().slice(0, 10);
    await expect.poll(async () => (await row.innerText({ timeout: 1000 }).catch(() => '')).split('\t')[0], { timeout: 10_000 }).toBe(today);
    expect((await row.innerText()).split('\t').slice(1, 3).map((c) => c.trim())).toEqual(['test', '2']);
    await page.screenshot({ path: path.join(SHOTS, 'usage.png'), fullPage: true });
  });

  it("shows each agent's retrieval and budget on the Agents page", async () => {
    await page.getByRole('link', { name: 'Agents', exact: true }).click();
    await page.getByRole('heading', { name: 'Agents' }).waitFor({ timeout: 10_000 });
    const sales = page.locator('main tbody tr').first();
    await expect.poll(() => sales.innerText({ timeout: 1000 }).catch(() => ''), { timeout: 10_000 }).toContain('1,000,000 tokens/day');
    expect(await sales.innerText()).toContain('full text (BM25)');
  });
});
