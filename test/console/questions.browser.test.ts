import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseConfig, startHerald, type RunningHerald } from '../helpers/start-herald.js';
import { launchChromium, signIn } from './chromium.js';

/**
 * A tool server's question on the Approvals page, in Chromium: seeded through the store port as
 * herald records one (elicitation during a hook run's call), shown with the server's message and
 * a form drawn from its schema (defaults filled in), answered with a click; the store records the
 * answer, the default of the field left as it was included, and who gave it.
 */
let herald: RunningHerald;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  herald = await startHerald(baseConfig());
  ({ context, page } = await launchChromium());
  await signIn(page, herald.url);
}, 60_000);

afterAll(async () => {
  await context?.close();
  await herald?.stop();
});

const mainText = () => page.locator('main').innerText({ timeout: 1000 }).catch(() => '');

describe("a tool server's question in the console", { timeout: 60_000 }, () => {
  it('shows the question beside the approvals and answers it from the form drawn from its schema', async () => {
    const now = Date.now();
    await herald.gateway.store.questions.create({
      id: 'q_console1',
      toolCallId: 'tc_console1',
      ownerKind: 'run',
      ownerId: 'run_console1',
      agentId: 'main',
      server: 'billing',
      mode: 'form',
      message: 'Which account should be billed?',
      requestedSchema: {
        type: 'object',
        properties: { account: { type: 'string', title: 'Account' }, priority: { type: 'string', enum: ['low', 'normal', 'high'], default: 'normal' }, notify: { type: 'boolean', default: true } },
        required: ['account'],
      },
      url: null,
      status: 'pending',
      content: null,
      answeredBy: null,
      createdAt: now,
      expiresAt: now + 600_000,
      answeredAt: null,
    });
    await page.getByRole('link', { name: 'Approvals', exact: true }).click();
    await page.getByRole('heading', { name: 'Approvals' }).waitFor({ timeout: 10_000 });
    await expect.poll(mainText, { timeout: 10_000 }).toContain('Which account should be billed?');
    expect(await page.locator('select[name=priority]').inputValue()).toBe('normal');
    await page.locator('input[name=account]').fill('acme');
    await page.getByRole('button', { name: "Accept billing's question" }).click();
    await expect.poll(mainText, { timeout: 10_000 }).toContain("Answered billing's question: accepted.");
    expect(await herald.gateway.store.questions.get('q_console1')).toMatchObject({
      status: 'accepted',
      content: { account: 'acme', priority: 'normal', notify: true },
      answeredBy: expect.stringMatching(/^console:/),
    });
  });
});
