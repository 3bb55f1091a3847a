import fs from 'node:fs';
import path from 'node:path';
import OpenAI, { toFile } from 'openai';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { API_KEY, baseConfig, eventually, GATEWAY_TOKEN, hookHeaders, startHerald, type RunningHerald } from '../helpers/start-herald.js';
import { channelCases } from '../plugins/channel-cases.js';
import { launchChromium, signIn, SHOTS } from './chromium.js';

/**
 * The console's lists in Chromium: rows named by their run and agent (the id small beside them),
 * times relative with the absolute one on hover, the mappings table's match as written and its
 * fixtures per mapping, the Files page, and what "runs hooks" means on the Agents page.
 */
const telegram = channelCases.find((c) => c.plugin.id === 'telegram')!;

/** two mappings of one file; the fixtures beside it name neither */
const orders = `- id: orders-paid
  name: Order paid
  match:
    path: orders
    when: headers.x-event = "paid"
  messageTemplate: "Order {{ id }} paid"
  deliver: false
- id: orders-other
  match: { path: orders }
  action: skip
`;
const ordersFixtures = [
  { name: 'paid', headers: { 'X-Event': 'paid' }, payload: { id: 1 }, expect: { kind: 'agent' } },
  { name: 'paid again', headers: { 'X-Event': 'paid' }, payload: { id: 2 }, expect: { kind: 'agent' } },
  { name: 'refunded', headers: { 'X-Event': 'refunded' }, payload: { id: 3 }, expect: { skip: true } },
];

let herald: RunningHerald;
let platform: FakeServer;
let context: BrowserContext;
let page: Page;
let runId: string;

const ABSOLUTE = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/;
const shot = async (name: string) => {
  await page.evaluate('window.scrollTo(0, 0)');
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
};
const go = async (hash: string) => {
  await page.goto(`${herald.url}/console#/${hash}`);
  await page.locator('main h1').first().waitFor();
};

beforeAll(async () => {
  // https://core.telegram.org/bots/api#making-requests: a sent message answers {ok:true, result}
  platform = await startFakeServer(() => ({ body: { ok: true, result: { message_id: 7 } } }));
  herald = await startHerald(
    baseConfig({
      channels: { telegram: telegram.config(platform.url) },
      hooks: { mappingsDir: './maps' },
      agents: { list: [{ id: 'triage', name: 'Triage' }, { id: 'support', name: 'Support desk' }] },
    }),
    { files: { 'maps/orders.yaml': orders, 'maps/orders.test.json': JSON.stringify(ordersFixtures) } },
  );
  const res = await fetch(`${herald.url}/hooks/agent`, {
    method: 'POST',
    headers: hookHeaders(),
    body: JSON.stringify({ message: 'Customer 42 asks about refunds', name: 'Refund for order 42', agentId: 'support', channel: 'telegram', to: '555' }),
  });
  ({ runId } = (await res.json()) as { runId: string });
  await eventually(async () => {
    const d = (await (await fetch(`${herald.url}/admin/deliveries?run=${runId}`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).json()) as { data: { status: string }[] };
    return d.data[0]?.status === 'delivered';
  }, 15_000);
  ({ context, page } = await launchChromium());
  // the page's clock is Playwright's: a test moves it on to see the relative times told again
  await page.clock.install();
  await signIn(page, herald.url);
}, 60_000);

afterAll(async () => {
  await context?.close();
  await herald?.stop();
  await platform?.close();
});

describe('the console lists in Chromium', { timeout: 60_000 }, () => {
  it('names runs and their agents, the id small beside them; times relative with the absolute one on hover, told again as time passes', async () => {
    await go('runs');
    const row = page.locator('tbody tr', { hasText: 'Refund for order 42' });
    await row.waitFor();
    expect(await row.getByRole('link', { name: 'Refund for order 42' }).getAttribute('href')).toBe(`#/runs/${runId}`);
    expect(await row.locator('td[data-label="Agent"]').innerText()).toBe('support');
    // the whole id is in the chip (copied whole), shown small, and on hover
    const chip = row.locator('code.id-chip');
    expect(await chip.textContent()).toBe(runId);
    expect(await chip.getAttribute('title')).toContain(runId);
    const created = row.locator('td[data-label="Created"] time');
    expect(await created.innerText()).toMatch(/^\d+ s ago$/);
    expect(await created.getAttribute('title')).toMatch(ABSOLUTE);
    const iso = (await created.getAttribute('datetime'))!;
    expect(await created.getAttribute('title')).toBe(`${iso.replace('T', ' ').slice(0, 19)} UTC`);
    await shot('lists-runs');
    await page.clock.fastForward('03:00');
    await expect.poll(() => created.innerText()).toMatch(/^3 min ago$/);

    // a detail page shows the absolute time
    await row.getByRole('link', { name: 'Refund for order 42' }).click();
    await page.getByRole('heading', { name: 'Run: Refund for order 42' }).waitFor();
    const facts = page.locator('dl.facts');
    expect(await facts.locator('dt:text-is("Queued") + dd').innerText()).toMatch(ABSOLUTE);
  });

  it('names the run of each request and each delivery, with its agent', async () => {
    await go('requests');
    const request = page.locator('tbody tr', { hasText: 'Refund for order 42' });
    await request.waitFor();
    expect(await request.locator('td[data-label="Run / event"]').innerText()).toMatch(/Refund for order 42[\s\S]*support/);
    expect(await request.locator('td[data-label="Received"] time').getAttribute('title')).toMatch(ABSOLUTE);
    await shot('lists-requests');
    await go('deliveries');
    const delivery = page.locator('tbody tr', { hasText: 'Refund for order 42' });
    await delivery.waitFor();
    expect(await delivery.locator('td[data-label="Reply of"]').innerText()).toMatch(/Refund for order 42[\s\S]*support/);
    expect(await delivery.locator('td[data-label="Created"] time').getAttribute('title')).toMatch(ABSOLUTE);
    await shot('lists-deliveries');
  });

  it("shows a mapping's match as written, its id on one line, and the fixtures of each mapping", async () => {
    await go('mappings');
    const paid = page.locator('tbody tr', { has: page.getByRole('link', { name: 'orders-paid', exact: true }) });
    await paid.waitFor();
    expect(await paid.locator('pre.match').innerText()).toBe('path: orders\nwhen: headers.x-event = "paid"');
    expect(await paid.locator('td[data-label="Fixtures"]').innerText()).toBe('2');
    const other = page.locator('tbody tr', { has: page.getByRole('link', { name: 'orders-other', exact: true }) });
    expect(await other.locator('pre.match').innerText()).toBe('path: orders');
    expect(await other.locator('td[data-label="Fixtures"]').innerText()).toBe('1');
    expect(await paid.getByRole('link', { name: 'orders-paid' }).evaluate((el) => (globalThis as any).getComputedStyle(el).whiteSpace)).toBe('nowrap');
    // one line: as tall as a line of its cell's text
    const idBox = (await paid.getByRole('link', { name: 'orders-paid' }).boundingBox())!;
    const lineHeight = await paid.getByRole('link', { name: 'orders-paid' }).evaluate((el) => parseFloat((globalThis as any).getComputedStyle(el).lineHeight) || parseFloat((globalThis as any).getComputedStyle(el).fontSize) * 1.6);
    expect(idBox.height).toBeLessThanOrEqual(Math.ceil(lineHeight) + 1);
    await shot('lists-mappings');
  });

  it('lists the mappings a refused reload could not load, marked "not loaded" with their fault, line and column, live', async () => {
    await go('mappings');
    await page.locator('tbody tr', { has: page.getByRole('link', { name: 'orders-paid', exact: true }) }).waitFor();
    expect(await page.locator('section.not-loaded').count()).toBe(0);
    // saved into the watched folder: the reload is refused (its template misses a parenthesis: line 4, column 20)
    const file = path.join(herald.dir, 'maps', 'refunds.yaml');
    fs.writeFileSync(file, '- id: refunds\n  match: { path: refunds }\n  action: agent\n  messageTemplate: "Refund {{ $uppercase(id }}"\n');
    const notLoaded = page.getByRole('table', { name: 'Mappings not loaded' }).locator('tbody tr');
    await notLoaded.waitFor({ timeout: 15_000 });
    expect(await notLoaded.count()).toBe(1);
    expect(await notLoaded.locator('td[data-label="Mapping"]').innerText()).toMatch(/^refunds\s+not loaded$/);
    expect(await notLoaded.locator('td[data-label="Where"]').innerText()).toBe(`${file}:4:20`);
    expect(await notLoaded.locator('td[data-label="Field"]').innerText()).toBe('messageTemplate');
    expect(await notLoaded.locator('td[data-label="Fault"]').innerText()).toMatch(/^mapping "refunds" .*template error/);
    // the running mappings stay listed below
    expect(await page.getByRole('table', { name: 'Mappings', exact: true }).getByRole('link', { name: 'orders-paid', exact: true }).count()).toBe(1);
    await shot('mappings-not-loaded');
    // removed: the next reload applies, and the section goes
    fs.rmSync(file);
    await page.locator('section.not-loaded').waitFor({ state: 'detached', timeout: 15_000 });
  });

  it('lists an uploaded file and a vector store with its files on the Files page', async () => {
    const client = new OpenAI({ baseURL: `${herald.url}/v1`, apiKey: API_KEY, maxRetries: 0 });
    const text = '# Refunds\n\nRefunds are issued within 14 days of purchase.\n';
    await client.files.create({ file: await toFile(Buffer.from(text), 'refunds.md'), purpose: 'assistants' });
    const store = await client.vectorStores.create({ name: 'Policies' });
    await client.vectorStores.files.uploadAndPoll(store.id, await toFile(Buffer.from('Shipping takes 3 days.'), 'shipping.md'));

    await go('knowledge');
    await page.locator('.nav').getByRole('link', { name: 'Files' }).click();
    await page.getByRole('heading', { name: 'Files', level: 1 }).waitFor();
    const file = page.getByRole('table', { name: 'Files' }).locator('tbody tr', { hasText: 'refunds.md' });
    await file.waitFor();
    expect(await file.locator('td[data-label="Bytes"]').innerText()).toBe(`${Buffer.byteLength(text)} B`);
    expect(await file.locator('td[data-label="Purpose"]').innerText()).toBe('assistants');
    expect(await file.locator('td[data-label="Status"]').innerText()).toContain('processed');
    expect(await file.locator('td[data-label="Created"] time').getAttribute('title')).toMatch(ABSOLUTE);
    const vs = page.getByRole('table', { name: 'Vector stores' }).locator('tbody tr', { hasText: 'Policies' });
    expect(await vs.locator('td[data-label="Files"]').innerText()).toBe('1 completed');
    expect(await vs.locator('td[data-label="Name"] code.id-chip').textContent()).toBe(store.id);
    // a file of a store says so in the files table, by the store's name
    expect(await page.getByRole('table', { name: 'Files' }).locator('tbody tr', { hasText: 'shipping.md' }).locator('td[data-label="Status"]').innerText()).toContain('Policies: completed');
    await vs.getByText('1 file').click();
    expect(await vs.locator('li[data-file]').innerText()).toMatch(/shipping\.md\s*completed/);
    await shot('files');
  });

  it('says what "runs hooks" means on the Agents page', async () => {
    await go('agents');
    const agent = (id: string) => page.locator('tbody tr', { has: page.locator('td[data-label="Id"] code', { hasText: new RegExp(`^${id}$`) }) });
    const triage = agent('triage');
    await triage.waitFor();
    expect(await triage.locator('td[data-label="Runs hooks"]').innerText()).toMatch(/^yes — the default agent: hook runs that name no agent/);
    const support = agent('support');
    expect(await support.locator('td[data-label="Runs hooks"]').innerText()).toMatch(/the others go to the default agent triage$/);
    await shot('lists-agents');
  });
});
