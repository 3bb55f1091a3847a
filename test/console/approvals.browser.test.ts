import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseConfig, startHerald, type RunningHerald } from '../helpers/start-herald.js';
import { GITHUB_TOKEN, pausedRun, toolCall } from '../http/admin/paused-runs.js';
import { launchChromium, signIn, SHOTS } from './chromium.js';
import { elapsedText } from '../../src/cli/admin/runs-list.js';

/**
 * The Approvals page in Chromium: runs paused for approval (seeded through the store port as a
 * turn leaves them) are listed with masked arguments; a click approves one and the store records
 * the decision and who made it (the console session); another is denied with a reason; a run that
 * pauses while the page is open shows without a reload. The gateway's run queue is stopped, so a
 * run queued again by a decision stays queued to be seen.
 */
let herald: RunningHerald;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  herald = await startHerald(baseConfig());
  await herald.gateway.runs.stop(0);
  ({ context, page } = await launchChromium());
  await signIn(page, herald.url);
}, 60_000);

afterAll(async () => {
  await context?.close();
  await herald?.stop();
});

const mainText = () => page.locator('main').innerText({ timeout: 1000 }).catch(() => '');

const card = (tool: string) => page.locator('main article.ask').filter({ has: page.getByRole('heading', { name: tool }) });

describe('the Approvals page in Chromium', { timeout: 60_000 }, () => {
  it('lists a pending approval, approves it with a click (the store records who), denies another with a reason', async () => {
    const { store } = herald.gateway;
    const first = await pausedRun(herald.gateway, (runId) => [toolCall(runId)], {
      name: 'GitHub acme/api#42',
      message: 'Issue #42 opened in acme/api by alice: Crash on start\nhttps://github.com/acme/api/issues/42',
      said: 'The reporter asks for a tracking issue; I will open one in acme/api.',
    });
    await page.getByRole('link', { name: 'Approvals', exact: true }).click();
    await page.getByRole('heading', { name: 'Approvals' }).waitFor({ timeout: 10_000 });
    const shown = card('github__create_issue');
    await expect.poll(() => shown.innerText({ timeout: 1000 }).catch(() => ''), { timeout: 10_000 }).toContain('github__create_issue');
    const text = await shown.innerText();
    // what a person decides from: the request, the agent's words, why it waits, the arguments readable
    expect(text).toContain('Issue #42 opened in acme/api by alice: Crash on start');
    expect(text).toContain('The reporter asks for a tracking issue; I will open one in acme/api.');
    expect(text).toContain("github__create_issue is not read-only and the run reads outside content: the mapping's tools.grant does not grant it");
    expect(text).toContain('"token": "••••"');
    expect(text).toContain('waiting_approval');
    expect(await mainText()).not.toContain(GITHUB_TOKEN);
    // the arguments are as wide as the card, one line per field: no word is cut in two
    const args = shown.locator('pre.args');
    expect((await args.innerText()).split('\n')).toContain('  "title": "Crash on start",');
    // polled: a live refresh may replace the card between the locator's match and the measure (a detached card measures 0)
    const argsWidthOfCard = () => shown.evaluate((el) => el.querySelector('pre.args')!.getBoundingClientRect().width / (el.getBoundingClientRect().width || Infinity));
    await expect.poll(argsWidthOfCard, { timeout: 10_000 }).toBeGreaterThan(0.8);
    // the Expires column says when: tools.approvalTimeout after the call
    expect(await shown.locator('dt:has-text("Expires") + dd time').getAttribute('datetime')).toBe(new Date(first.calls[0]!.approvalExpiresAt!).toISOString());
    await page.screenshot({ path: path.join(SHOTS, 'approvals.png'), fullPage: true });

    const runLabel = `run GitHub acme/api#42 (${first.run.id.slice(0, 8)})`;
    await page.getByRole('button', { name: `Approve github__create_issue for ${runLabel}` }).click();
    await expect.poll(mainText, { timeout: 10_000 }).toContain('Approved github__create_issue. Run GitHub acme/api#42 is queued.');
    const approved = (await store.toolCalls.get(first.calls[0]!.id))!;
    expect(approved.approval).toMatchObject({ decision: 'approved', by: expect.stringMatching(/^console:[0-9a-f]{8}$/) });
    expect((await store.runs.get(first.run.id))!.status).toBe('queued');
    await expect.poll(mainText, { timeout: 10_000 }).toContain('Nothing waits for approval.');

    // a run that pauses while the page is open shows without a reload (the change feed); two calls
    // of one tool in one run have buttons of their own names
    const second = await pausedRun(herald.gateway, (runId) => [toolCall(runId, { tool: 'close_issue', arguments: '{"number":7}' }), toolCall(runId, { tool: 'close_issue', arguments: '{"number":8}' })]);
    await expect.poll(() => page.locator('main article.ask').count(), { timeout: 10_000 }).toBe(2);
    const [seven, eight] = second.calls;
    const label = (c: typeof seven) => `close_issue for run GitHub (${second.run.id.slice(0, 8)}), call ${c!.id}`;
    const names = await page.locator('main article.ask button').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
    expect(new Set(names).size).toBe(names.length);

    // Deny with no reason says on the page what is missing, and decides nothing
    await page.getByRole('button', { name: `Deny github__${label(seven)}` }).click();
    const missing = page.getByRole('alert').filter({ hasText: 'Write a reason to deny' });
    await missing.waitFor({ timeout: 5000 });
    expect(await missing.count()).toBe(1);
    expect(await page.getByLabel(`Reason to deny github__${label(seven)}`).getAttribute('aria-invalid')).toBe('true');
    expect((await store.toolCalls.get(seven!.id))!.approval).toBeNull();

    await page.getByLabel(`Reason to deny github__${label(seven)}`).fill('Never close issues from a webhook');
    await page.getByRole('button', { name: `Deny github__${label(seven)}` }).click();
    await expect.poll(mainText, { timeout: 10_000 }).toContain('Denied github__close_issue.');
    expect((await store.toolCalls.get(seven!.id))!).toMatchObject({
      status: 'denied',
      approval: { decision: 'denied', by: approved.approval!.by, reason: 'Never close issues from a webhook' },
    });
    expect((await store.toolCalls.get(eight!.id))!.approval).toBeNull();

    // the run page's timeline: the model turn, its call, who approved it
    await page.goto(`${herald.url}/console#/runs/${first.run.id}`);
    await page.getByRole('heading', { name: 'Model turns and tool calls' }).waitFor({ timeout: 10_000 });
    const timeline = page.locator('main .timeline');
    await expect.poll(() => timeline.innerText({ timeout: 1000 }).catch(() => ''), { timeout: 10_000 }).toContain('approved by console:');
    const turns = await timeline.innerText();
    expect(turns).toMatch(/model turn 1 asked for 1 tool call/i);
    expect(turns).toContain('create_issue');
    expect(turns).not.toContain(GITHUB_TOKEN);
    // its times: started at its first claim, the wait for a person apart from the work (queued again, not finished)
    const facts = page.locator('dl.facts');
    const fact = (name: string) => facts.locator(`dt:text-is("${name}") + dd`).innerText();
    const paused = (await store.runs.get(first.run.id))!;
    expect(await fact('Started')).toBe(`${new Date(paused.startedAt!).toISOString().replace('T', ' ').slice(0, 19)} UTC`);
    expect(await fact('Waiting for a person')).toBe(elapsedText(approved.approval!.at - approved.createdAt));
    expect(await fact('Worked')).toBe('not finished');
    await page.screenshot({ path: path.join(SHOTS, 'run-tool-calls.png'), fullPage: true });
  });
  it('the Overview counts the calls waiting for a person among its trouble, live, and links to Approvals', async () => {
    await page.goto(`${herald.url}/console#/overview`);
    await page.getByRole('heading', { name: 'Overview' }).waitFor({ timeout: 10_000 });
    const trouble = page.locator('main section.trouble');
    // the first test left one call of its second run waiting
    const waits = trouble.getByRole('link', { name: '1 tool call waits for a person' });
    await waits.waitFor({ timeout: 10_000 });
    expect(await trouble.innerText()).not.toContain('All clear');
    // a run pausing while the page is open is counted without a reload (the live stream)
    await pausedRun(herald.gateway, (runId) => [toolCall(runId, { tool: 'label_issue', arguments: '{"label":"bug"}' })]);
    await trouble.getByRole('link', { name: '2 tool calls wait for a person' }).waitFor({ timeout: 10_000 });
    expect(await page.locator('main .stat').filter({ hasText: 'Approvals waiting' }).innerText()).toContain('2');
    await page.screenshot({ path: path.join(SHOTS, 'overview-approvals.png'), fullPage: true });
    await trouble.getByRole('link', { name: '2 tool calls wait for a person' }).click();
    await page.getByRole('heading', { name: 'Approvals' }).waitFor({ timeout: 10_000 });
    await expect.poll(() => page.locator('main article.ask').count(), { timeout: 10_000 }).toBe(2);
  });
});
