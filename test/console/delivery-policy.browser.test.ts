import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { GATEWAY_TOKEN, baseConfig, eventually, hookHeaders, startHerald, type RunningHerald } from '../helpers/start-herald.js';
import { channelCases } from '../plugins/channel-cases.js';
import { launchChromium, signIn, SHOTS } from './chromium.js';

/**
 * The Deliveries page in Chromium: the bulk retry of failed deliveries (the count in the
 * confirmation before anything changes) and a delivery's fallback chain.
 */
const caseOf = (id: string) => channelCases.find((c) => c.plugin.id === id)!;

let herald: RunningHerald;
let platform: FakeServer;
let context: BrowserContext;
let page: Page;
let telegramDown = true;
const adminGet = async (p: string) => (await (await fetch(`${herald.url}/admin${p}`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).json()) as { data: any[] };

beforeAll(async () => {
  platform = await startFakeServer((r) => {
    // https://core.telegram.org/bots/api#making-requests: a chat the bot cannot see is 400 "Bad Request: chat not found"
    if (caseOf('telegram').isSend(r)) return telegramDown ? { status: 400, body: { ok: false, error_code: 400, description: 'Bad Request: chat not found' } } : caseOf('telegram').ok;
    return caseOf('slack').ok;
  });
  herald = await startHerald(
    baseConfig({
      delivery: { baseDelayMs: 10, maxDelayMs: 50, maxAttempts: 2 },
      channels: { telegram: caseOf('telegram').config(platform.url), slack: caseOf('slack').config(platform.url) },
      hooks: { mappings: [{ id: 'alerts', match: { path: 'alerts' }, messageTemplate: 'alert {{ name }}', wakeMode: 'next-heartbeat', channel: 'telegram', to: '555', fallback: [{ channel: 'slack', to: 'C0PS' }] }] },
    }),
  );
  ({ context, page } = await launchChromium());
  for (const to of ['1', '2', '3']) {
    const res = await fetch(`${herald.url}/hooks/agent`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ message: `tell ${to}`, channel: 'telegram', to, wakeMode: 'next-heartbeat' }) });
    expect(res.status).toBe(202);
  }
  const res = await fetch(`${herald.url}/hooks/alerts`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ name: 'disk full' }) });
  expect(res.status).toBe(202);
  await eventually(async () => (await adminGet('/deliveries?status=failed')).data.length === 4 && (await adminGet('/deliveries?status=delivered')).data.length === 1, 20_000);

  await signIn(page, herald.url);
}, 60_000);

afterAll(async () => {
  await context?.close();
  await herald?.stop();
  await platform?.close();
});

describe('the Deliveries page in Chromium', { timeout: 60_000 }, () => {
  it('retries every failed delivery the filters match, after confirming their count', async () => {
    await page.goto(`${herald.url}/console#/deliveries?status=failed`);
    await page.getByRole('heading', { name: 'Deliveries' }).waitFor();
    await expect.poll(() => page.locator('main tbody tr').count()).toBe(4);
    await page.getByLabel('Channel').fill('telegram');
    await page.getByLabel('Error').fill('chat not found');

    // the first time the operator cancels: the count was asked for, nothing changed
    const messages: string[] = [];
    page.once('dialog', (dialog) => {
      messages.push(dialog.message());
      void dialog.dismiss();
    });
    await page.getByRole('button', { name: 'Retry all failed…' }).click();
    await expect.poll(() => messages.length).toBe(1);
    // the alert's telegram delivery was replaced by its slack fallback: a retry would send it twice
    expect(messages[0]).toBe('Retry 3 failed deliveries matching these filters?');
    expect((await adminGet('/deliveries?status=failed')).data).toHaveLength(4);

    telegramDown = false;
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Retry all failed…' }).click();
    await page.getByText('Retry: 3 deliveries').waitFor();
    await eventually(async () => (await adminGet('/deliveries?status=delivered&channel=telegram')).data.length === 3, 20_000);
    await page.screenshot({ path: path.join(SHOTS, 'deliveries-bulk-retry.png'), fullPage: true });
  });

  it("shows a delivery's fallback chain", async () => {
    const [fallback] = (await adminGet('/deliveries?channel=slack')).data;
    expect(fallback.fallbackOf).toBeTruthy();
    await page.goto(`${herald.url}/console#/overview`);
    await page.goto(`${herald.url}/console#/deliveries/${fallback.id}`);
    await page.getByRole('heading', { name: 'Fallback chain' }).waitFor();
    const items = page.locator('ol.chain li');
    await expect.poll(() => items.count()).toBe(2);
    expect(await items.nth(0).getAttribute('data-delivery')).toBe(fallback.fallbackOf);
    expect(await items.nth(0).textContent()).toContain('telegram → 555');
    expect(await items.nth(0).textContent()).toContain('chat not found');
    expect(await items.nth(1).textContent()).toContain('slack → C0PS');
    expect(await items.nth(1).textContent()).toContain('delivered');
    await page.screenshot({ path: path.join(SHOTS, 'delivery-fallback-chain.png'), fullPage: true });
  });
});
