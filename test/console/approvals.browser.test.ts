import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseConfig, startHerald, type RunningHerald } from '../helpers/start-herald.js';
import { GITHUB_TOKEN, pausedRun, toolCall } from '../http/admin/paused-runs.js';
import { launchChromium, signIn, SHOTS } from './chromium.js';

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

describe('the Approvals page in Chromium', { timeout: 60_000 }, () => {
  it('lists a pending approval, approves it with a click (the store records who), denies another with a reason', async () => {
    const { store } = herald.gateway;
    const first = await pausedRun(herald.gateway, (runId) => [toolCall(runId)]);
    await page.getByRole('link', { name: 'Approvals', exact: true }).click();
    await page.getByRole('heading', { name: 'Approvals' }).waitFor({ timeout: 10_000 });
    const row = page.locator('main tbody tr').first();
    await expect.poll(() => row.innerText({ timeout: 1000 }).catch(() => ''), { timeout: 10_000 }).toContain('github / create_issue');
    const shown = await row.innerText();
    expect(shown).toContain('"token": "••••"');
    expect(shown).toContain('GitHub');
    expect(shown).toContain('waiting_approval');
    expect(await mainText()).not.toContain(GITHUB_TOKEN);
    await page.screenshot({ path: path.join(SHOTS, 'approvals.png'), fullPage: true });

    await page.getByRole('button', { name: 'Approve github / create_issue' }).click();
    await expect.poll(mainText, { timeout: 10_000 }).toContain('Approved github / create_issue. Run GitHub is queued.');
    const approved = (await store.toolCalls.get(first.calls[0]!.id))!;
    expect(approved.approval).toMatchObject({ decision: 'approved', by: expect.stringMatching(/^console:[0-9a-f]{8}$/) });
    expect((await store.runs.get(first.run.id))!.status).toBe('queued');
    await expect.poll(mainText, { timeout: 10_000 }).toContain('Nothing waits for approval.');

    // a run that pauses while the page is open shows without a reload (the change feed)
    const second = await pausedRun(herald.gateway, (runId) => [toolCall(runId, { tool: 'close_issue', arguments: '{"number":7}' })]);
    await expect.poll(() => row.innerText({ timeout: 1000 }).catch(() => ''), { timeout: 10_000 }).toContain('github / close_issue');
    await page.getByLabel('Reason to deny github / close_issue').fill('Never close issues from a webhook');
    await page.getByRole('button', { name: 'Deny github / close_issue' }).click();
    await expect.poll(mainText, { timeout: 10_000 }).toContain('Denied github / close_issue.');
    expect((await store.toolCalls.get(second.calls[0]!.id))!).toMatchObject({
      status: 'denied',
      approval: { decision: 'denied', by: approved.approval!.by, reason: 'Never close issues from a webhook' },
    });

    // the run page's timeline: the model turn, its call, who approved it
    await page.goto(`${herald.url}/console#/runs/${first.run.id}`);
    await page.getByRole('heading', { name: 'Model turns and tool calls' }).waitFor({ timeout: 10_000 });
    const timeline = page.locator('main .timeline');
    await expect.poll(() => timeline.innerText({ timeout: 1000 }).catch(() => ''), { timeout: 10_000 }).toContain('approved by console:');
    const text = await timeline.innerText();
    expect(text).toMatch(/model turn 1 asked for 1 tool call/i);
    expect(text).toContain('create_issue');
    expect(text).not.toContain(GITHUB_TOKEN);
    await page.screenshot({ path: path.join(SHOTS, 'run-tool-calls.png'), fullPage: true });
  });
});
