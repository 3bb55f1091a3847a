import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { baseConfig, hookHeaders, startHerald, type RunningHerald } from '../helpers/start-herald.js';
import { launchChromium, signIn, SHOTS } from './chromium.js';

/**
 * The Overview's Trouble section in Chromium: all clear at first; then, without reloading the
 * page, a model provider refusing its key (a fake OpenAI-compatible server answering 401 as
 * https://platform.openai.com/docs/guides/error-codes#api-errors documents), the alert it
 * raises, the alert's channel failing (its receiver answering 503), and a mapping file saved
 * with a JSONata error, each linking to its page.
 */
let herald: RunningHerald;
let upstream: FakeServer;
let context: BrowserContext;
let page: Page;

const GOOD = `- id: deploys
  match: { path: deploys }
  action: wake
  textTemplate: "Deployed {{ service }}"
`;

beforeAll(async () => {
  delete process.env.OPENAI_API_KEY;
  upstream = await startFakeServer((r) =>
    r.path.startsWith('/v1/')
      ? { status: 401, body: { error: { message: 'Incorrect API key provided: sk-wrong.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } } }
      : { status: 503, body: 'down' },
  );
  herald = await startHerald(
    baseConfig({
      hooks: { mappingsDir: './mappings' },
      models: { providers: { up: { api: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'sk-wrong' } } },
      agents: { defaults: { model: 'up/m' } },
      channels: { webhook: { url: `${upstream.url}/alerts` } },
      delivery: { baseDelayMs: 10, maxDelayMs: 50, maxAttempts: 50 },
      alerts: { targets: [{ channel: 'webhook' }], rules: [{ on: 'runs.failing', agent: 'main', count: 1 }] },
    }),
    { files: { 'mappings/deploys.yaml': GOOD } },
  );
  ({ context, page } = await launchChromium());
  await signIn(page, herald.url);
}, 60_000);

afterAll(async () => {
  await context?.close();
  await herald?.stop();
  await upstream?.close();
});

const trouble = () => page.locator('section[aria-label="Trouble"]');
const item = (kind: string) => trouble().locator('li.trouble-item').filter({ has: page.locator('.badge', { hasText: kind }) });

describe("the Overview's Trouble section in Chromium", { timeout: 90_000 }, () => {
  it('says all clear, then shows each trouble live, each linking to its page', async () => {
    await trouble().getByText(/^All clear/).waitFor();
    expect(await page.locator('main h2').first().textContent()).toBe('Trouble');
    await page.evaluate(() => ((globalThis as { marker?: number }).marker = 1));

    const res = await fetch(`${herald.url}/hooks/agent`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ message: 'hi', deliver: false, wakeMode: 'next-heartbeat' }) });
    expect(res.status).toBe(202);
    await item('model provider').waitFor({ timeout: 30_000 });
    expect(await item('model provider').innerText()).toMatch(/up · 1 failure in a row · 401 .*Incorrect API key provided/);
    await item('alert').waitFor({ timeout: 30_000 });
    expect(await item('alert').innerText()).toContain('runs.failing');
    await item('channel').waitFor({ timeout: 30_000 });
    expect(await item('channel').innerText()).toMatch(/webhook · \d+ failures? in a row · .*503/);
    expect(await item('alert').getByRole('link').getAttribute('href')).toBe('#/alerts?status=open&condition=runs.failing');
    expect(await item('channel').getByRole('link').getAttribute('href')).toBe('#/deliveries?status=failed&channel=webhook');

    fs.writeFileSync(path.join(herald.dir, 'mappings', 'broken.yaml'), `${GOOD.replace(/deploys/g, 'more')}- id: bad-one\n  match: { path: bad }\n  action: agent\n  messageTemplate: "{{ $uppercase(service }}"\n`);
    await item('mapping not loaded').waitFor({ timeout: 30_000 });
    expect(await item('mapping not loaded').innerText()).toMatch(/bad-one .*broken\.yaml \[1\]:8:20 · messageTemplate/);
    expect(await item('reload refused').innerText()).toContain('mappingsDir changed');
    expect(await item('reload refused').locator('.faults').innerText()).toContain('Expected ")" before end of expression');
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: path.join(SHOTS, 'overview-trouble.png'), fullPage: true });

    // a reload that applies clears the refusal, and names the keys left for a restart
    fs.rmSync(path.join(herald.dir, 'mappings', 'broken.yaml'));
    const config = JSON.parse(fs.readFileSync(herald.configFile, 'utf8'));
    fs.writeFileSync(herald.configFile, JSON.stringify({ ...config, gateway: { ...config.gateway, port: 1 } }));
    expect((await herald.gateway.reload('test')).ok).toBe(true);
    await item('restart needed').waitFor({ timeout: 30_000 });
    expect(await item('restart needed').innerText()).toMatch(/gateway\.port changed in the config file/);
    await item('reload refused').waitFor({ state: 'detached', timeout: 30_000 });
    expect(await item('mapping not loaded').count()).toBe(0);
    // live: the page was never loaded again
    expect(await page.evaluate(() => (globalThis as { marker?: number }).marker)).toBe(1);

    await item('model provider').getByRole('link').click();
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    expect(page.url()).toContain('#/runs?status=failed');
    expect(await page.getByLabel('Status').inputValue()).toBe('failed');
  });
});
