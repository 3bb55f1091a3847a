import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { eventually, hookHeaders, startHerald, type RunningHerald } from '../helpers/start-herald.js';
import { alertTexts, config, platforms, type Platforms } from '../runtime/alert-platforms.js';
import { launchChromium, signIn, SHOTS } from './chromium.js';

/** The Alerts page in Chromium: an incident shown open, then resolved as it clears (live, without reloading). */
let herald: RunningHerald;
const fakes: FakeServer[] = [];
let p: Platforms;
let context: BrowserContext;
let page: Page;

async function hook(body: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${herald.url}/hooks/github`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify(body) });
  expect(res.status).toBe(202);
}

beforeAll(async () => {
  p = await platforms(async (handler) => {
    const server = await startFakeServer(handler);
    fakes.push(server);
    return server;
  });
  herald = await startHerald(config(p, { alerts: { rules: [{ on: 'runs.failing', mapping: 'github', count: 1 }] } }));
  ({ context, page } = await launchChromium());
  await signIn(page, herald.url);
}, 60_000);

afterAll(async () => {
  await context?.close();
  await herald?.stop();
  await Promise.all(fakes.map((f) => f.close()));
});

describe('the Alerts page in Chromium', { timeout: 60_000 }, () => {
  it('lists an open incident as it is raised and shows it resolved when it clears, live on the stream\'s alerts change', async () => {
    // the page is open before the incident: it follows the `alerts` change kind alone, so the row comes live from it
    await page.getByRole('link', { name: 'Alerts', exact: true }).click();
    await page.getByRole('heading', { name: 'Alerts' }).waitFor({ timeout: 10_000 });
    await page.getByText('No alerts.').waitFor({ timeout: 10_000 });
    await hook({ note: 'FAIL deploy' });
    await eventually(() => alertTexts(p).some((t) => t.startsWith('herald alert: runs.failing')));
    const row = page.locator('main tbody tr').first();
    await expect.poll(() => row.innerText({ timeout: 1000 }).catch(() => ''), { timeout: 10_000 }).toContain('runs.failing');
    expect(await row.innerText()).toContain('open');
    expect(await row.innerText()).toContain('mapping github: 1 runs in a row failed');
    await page.screenshot({ path: path.join(SHOTS, 'alerts-open.png'), fullPage: true });

    await hook({ note: 'all good' });
    await expect.poll(() => row.innerText({ timeout: 1000 }).catch(() => ''), { timeout: 15_000 }).toContain('resolved');
    await page.getByLabel('Status').selectOption('open');
    await expect.poll(() => page.locator('main').innerText({ timeout: 1000 }).catch(() => ''), { timeout: 10_000 }).toContain('No alerts.');
  });
});
