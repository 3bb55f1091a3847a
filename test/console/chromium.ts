import fs from 'node:fs';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { GATEWAY_TOKEN, eventually, tempDir } from '../helpers/start-herald.js';

/** Debian's Chromium (`apt-get install chromium`; `.ci/run` installs it), or HERALD_CHROMIUM */
const CHROMIUM = process.env.HERALD_CHROMIUM ?? '/usr/bin/chromium';
/** git-ignored: the pages' screenshots, for a reviewer to look at */
export const SHOTS = path.resolve('.tmp/screenshots');

/** a headless Chromium with a fresh profile and one page of a laptop's size, driven by playwright-core */
export async function launchChromium(): Promise<{ context: BrowserContext; page: Page }> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`Chromium is not at ${CHROMIUM}: apt-get install -y chromium (or set HERALD_CHROMIUM)`);
  fs.mkdirSync(SHOTS, { recursive: true });
  const context = await chromium.launchPersistentContext(tempDir('herald-chromium-'), {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1280, height: 860 },
  });
  return { context, page: context.pages()[0] ?? (await context.newPage()) };
}

/** opens the console of the herald at `url` and signs in with the gateway token, up to its Overview */
export async function signIn(page: Page, url: string): Promise<void> {
  await page.goto(`${url}/console`);
  await page.getByLabel('Gateway token').fill(GATEWAY_TOKEN);
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
}

/** the run as the admin API shows it, once it has succeeded (what a page under test is opened on) */
export function succeededRun(url: string, runId: string, timeoutMs: number): Promise<Record<string, any>> {
  return eventually(async () => {
    const run = (await (await fetch(`${url}/admin/runs/${runId}`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).json()) as Record<string, any>;
    return run.status === 'succeeded' ? run : undefined;
  }, timeoutMs);
}
