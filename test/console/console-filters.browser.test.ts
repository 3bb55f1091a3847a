import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { GATEWAY_TOKEN, baseConfig, eventually, hookHeaders, startHerald, type RunningHerald } from '../helpers/start-herald.js';
import { channelCases } from '../plugins/channel-cases.js';
import { launchChromium, signIn, SHOTS } from './chromium.js';

/**
 * The console's lists in Chromium (headless, playwright-core): paging 57 runs with Older and
 * Newer from the keyboard, every filter of the Runs page, the Sessions page, a phone's width.
 * Screenshots go to .tmp/screenshots (git-ignored), as in console.browser.test.ts.
 */
const telegram = channelCases.find((c) => c.plugin.id === 'telegram')!;
const GITHUB_RUNS = 30;
const DIRECT_RUNS = 27;

let herald: RunningHerald;
let platform: FakeServer;
let context: BrowserContext;
let page: Page;
const runIds: string[] = [];

/** `fullPage: false`: the first screen only (a phone's page of 50 rows is very long) */
const shot = async (name: string, fullPage = true) => {
  await page.evaluate('window.scrollTo(0, 0)');
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage });
};
const rows = () => page.locator('main tbody tr');
const pageStatus = () => page.locator('.page-status').first();
const adminGet = async (p: string) => (await (await fetch(`${herald.url}/admin${p}`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).json()) as { data: any[] };
/** the Runs page's rows, once the list shows `count` of them */
const expectRows = (count: number) => expect.poll(() => rows().count(), { timeout: 10_000 }).toBe(count);
/** a page afresh (the same hash again would not navigate) */
const go = async (hash: string) => {
  await page.goto(`${herald.url}/console#/overview`);
  await page.goto(`${herald.url}/console#/${hash}`);
  await page.locator('main h1').first().waitFor();
};

beforeAll(async () => {
  // https://core.telegram.org/bots/api#making-requests: a sent message answers {ok:true, result}
  platform = await startFakeServer(() => ({ body: { ok: true, result: { message_id: 7 } } }));
  herald = await startHerald(
    baseConfig({
      channels: { telegram: telegram.config(platform.url) },
      agents: { list: [{ id: 'main', name: 'Main' }, { id: 'support', name: 'Support desk' }] },
      hooks: {
        allowedAgentIds: ['main', 'support'],
        mappings: [
          { id: 'github-issues', match: { path: 'github' }, name: 'GitHub', messageTemplate: 'Issue {{ title }}', channel: 'telegram', to: '555', agentId: 'support' },
          // long ids, paths and predicates without a space: they must wrap, not widen the table past the screen
          {
            id: 'stripe-invoice-payment-failed-escalations-for-enterprise-customers',
            match: { path: 'billing/stripe/invoices/payment-failed/enterprise', when: 'type="invoice.payment_failed"and(data.object.amount_due>100000)and($exists(data.object.customer_email))' },
            action: 'wake',
            textTemplate: 'Invoice {{ data.object.id }} failed',
          },
        ],
      },
    }),
  );
  ({ context, page } = await launchChromium());

  // 57 webhooks: 30 through the github mapping (the support agent, delivered on telegram), 27 straight to /agent (slack, not delivered)
  for (let i = 0; i < GITHUB_RUNS + DIRECT_RUNS; i++) {
    const github = i < GITHUB_RUNS;
    const res = await fetch(`${herald.url}/hooks/${github ? 'github' : 'agent'}`, {
      method: 'POST',
      headers: hookHeaders(),
      body: JSON.stringify(github ? { title: `Crash ${i}` } : { message: `Ping ${i}`, name: `Direct ${i}`, channel: 'slack', deliver: false, wakeMode: 'next-heartbeat' }),
    });
    expect(res.status).toBe(202);
    runIds.push(((await res.json()) as { runId: string }).runId);
  }
  await eventually(async () => (await adminGet('/runs?status=succeeded&limit=100')).data.length === GITHUB_RUNS + DIRECT_RUNS, 30_000);
  await eventually(async () => (await adminGet('/deliveries?status=delivered&mapping=github-issues&limit=100')).data.length === GITHUB_RUNS, 30_000);

  await signIn(page, herald.url);
}, 90_000);

afterAll(async () => {
  await context?.close();
  await herald?.stop();
  await platform?.close();
});

describe('the console lists in Chromium', { timeout: 60_000 }, () => {
  it('pages 57 runs with Older and Newer from the keyboard: the focus stays on the pager, the view holds still', async () => {
    await go('runs');
    await expectRows(50);
    const older = page.getByRole('button', { name: 'Older' });
    const newer = page.getByRole('button', { name: 'Newer' });
    expect(await newer.isDisabled()).toBe(true);
    await expect.poll(() => pageStatus().textContent()).toBe('Page 1');

    const pagerTop = async () => (await page.locator('.pager').first().boundingBox())!.y;
    await older.focus();
    const before = { top: await pagerTop(), scroll: await page.evaluate('window.scrollY') };
    await page.keyboard.press('Enter');
    await expectRows(GITHUB_RUNS + DIRECT_RUNS - 50);
    await expect.poll(() => pageStatus().textContent()).toBe('Page 2');
    // the last page: Older is spent, so the focus moved to Newer rather than to the page's top
    expect(await older.isDisabled()).toBe(true);
    expect(await page.evaluate('document.activeElement.textContent')).toContain('Newer');
    expect(await pagerTop()).toBe(before.top);
    expect(await page.evaluate('window.scrollY')).toBe(before.scroll);
    // the oldest runs: the first github webhooks
    expect(await page.locator('main tbody').textContent()).toContain('GitHub');
    await shot('runs-page-2', false);

    await page.keyboard.press('Enter');
    await expectRows(50);
    await expect.poll(() => pageStatus().textContent()).toBe('Page 1');
    expect(await page.evaluate('document.activeElement.textContent')).toContain('Older');
    // a live reload keeps the page shown: back on page 2, a change arriving redraws page 2
    await page.keyboard.press('Enter');
    await expect.poll(() => pageStatus().textContent()).toBe('Page 2');
    await fetch(`${herald.url}/hooks/agent`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ message: 'One more', name: 'Late', deliver: false, wakeMode: 'next-heartbeat' }) });
    await page.waitForTimeout(300);
    await expect.poll(() => pageStatus().textContent()).toBe('Page 2');
    expect(await page.locator('main tbody').textContent()).not.toContain('Late');
  });

  it('filters the runs by status, mapping, channel, time range and search', async () => {
    await go('runs');
    await expectRows(50);
    await page.getByLabel('Status').selectOption('succeeded');
    await page.getByLabel('Mapping').locator('option[value="github-issues"]').waitFor({ state: 'attached' });
    await page.getByLabel('Mapping').selectOption('github-issues');
    await expectRows(GITHUB_RUNS);
    // one page: no pager to stop at
    expect(await page.locator('.pager').first().isHidden()).toBe(true);
    expect(new Set(await page.locator('main tbody td[data-label="Mapping"]').allTextContents())).toEqual(new Set(['github-issues']));

    // the channel: the delivery's (telegram) for the mapped runs; the action's (slack) for the direct ones
    await page.getByLabel('Channel').fill('telegram');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expectRows(GITHUB_RUNS);
    await page.getByLabel('Channel').fill('slack');
    await page.getByLabel('Channel').press('Enter');
    await page.getByText('No runs yet.').waitFor();
    await page.getByLabel('Mapping').selectOption('');
    await expectRows(DIRECT_RUNS);
    await shot('runs-filtered');

    // a time range that ended an hour ago holds none of them; one from an hour ago holds them all
    const local = (t: number) => new Date(t - new Date(t).getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    await page.getByLabel('To', { exact: true }).fill(local(Date.now() - 3_600_000));
    await page.getByText('No runs yet.').waitFor();
    await page.getByLabel('To', { exact: true }).fill('');
    await page.getByLabel('From', { exact: true }).fill(local(Date.now() - 3_600_000));
    await expectRows(DIRECT_RUNS);

    // search: a run's id
    await page.getByLabel('Channel').fill('');
    await page.getByLabel('Search').fill(runIds[3]!.slice(0, 13));
    await page.getByLabel('Search').press('Enter');
    await expectRows(1);
    expect(await page.locator('main tbody').textContent()).toContain('GitHub');
  });

  it('lists the sessions by agent and opens one to its runs', async () => {
    await page.goto(`${herald.url}/console#/overview`);
    await page.getByRole('link', { name: 'Sessions' }).click();
    await page.getByRole('heading', { name: 'Sessions' }).waitFor();
    await expectRows(50);
    await page.getByLabel('Agent').locator('option[value="support"]').waitFor({ state: 'attached' });
    await page.getByLabel('Agent').selectOption('support');
    await expectRows(GITHUB_RUNS);
    expect(new Set(await page.locator('main tbody td[data-label="Agent"]').allTextContents())).toEqual(new Set(['support']));
    await shot('sessions');
    await rows().first().getByRole('link').click();
    await page.getByRole('heading', { name: /^Session hook:/ }).waitFor();
    await expectRows(1);
    expect(await page.locator('main tbody').textContent()).toContain('GitHub');
    await expect.poll(() => page.locator('.transcript .msg').count()).toBe(2);
    expect(await page.locator('dl.facts').textContent()).toMatch(/Agent\s*support/);
    await shot('session-detail');
  });

  it('is readable 390 px wide: no sideways scrolling, every filter within reach', async () => {
    await page.setViewportSize({ width: 390, height: 800 });
    for (const hash of ['runs', 'sessions', 'deliveries', 'requests']) {
      await go(hash);
      await rows().first().waitFor();
      expect(await page.evaluate('document.documentElement.scrollWidth'), hash).toBeLessThanOrEqual(390);
      for (const label of ['From', 'To', 'Search']) {
        const box = (await page.getByLabel(label, { exact: true }).boundingBox())!;
        expect(box.x + box.width, `${hash}: ${label}`).toBeLessThanOrEqual(390);
      }
      await shot(`phone-${hash}`, false);
    }
    await page.setViewportSize({ width: 1280, height: 860 });
  });

  it('fits the Runs, Sessions, Deliveries and Mappings tables 1440 px wide: no column cut off or scrolled out of sight', async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    for (const hash of ['runs', 'sessions', 'deliveries', 'mappings']) {
      await go(hash);
      await rows().first().waitFor();
      const overflow = (await page.evaluate("[...document.querySelectorAll('main .table-wrap')].map((wrap) => wrap.scrollWidth - wrap.clientWidth)")) as number[];
      expect(overflow.length, hash).toBeGreaterThan(0);
      for (const extra of overflow) expect(extra, hash).toBeLessThanOrEqual(0);
      const lastHeader = (await page.locator('main thead th').last().boundingBox())!;
      expect(lastHeader.x + lastHeader.width, hash).toBeLessThanOrEqual(1440);
      await shot(`wide-${hash}`, false);
    }
    await page.setViewportSize({ width: 1280, height: 860 });
  });
});
