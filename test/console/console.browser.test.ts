import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { GATEWAY_TOKEN, baseConfig, eventually, hookHeaders, startHerald, type RunningHerald } from '../helpers/start-herald.js';
import { channelCases } from '../plugins/channel-cases.js';
import { launchChromium, SHOTS } from './chromium.js';

/**
 * The console in a real browser: Debian's Chromium, headless, driven by playwright-core.
 * Each page leaves a screenshot in .tmp/screenshots (git-ignored) for a reviewer to look at.
 */
const telegram = channelCases.find((c) => c.plugin.id === 'telegram')!;

const github = {
  id: 'github-issues',
  match: { path: 'github' },
  name: 'GitHub',
  messageTemplate: 'Issue {{ issue.title }} was {{ action }}',
  deliver: false,
  retainPayloads: true,
};

/** alerts of one session key within the window: one run listing them */
const alertBurst = {
  id: 'alert-burst',
  match: { path: 'alert-burst' },
  name: 'Alert burst',
  messageTemplate: '{{ text }}',
  sessionKey: 'hook:alerts',
  deliver: false,
  wakeMode: 'next-heartbeat',
  coalesce: { windowMs: 1000 },
};

let herald: RunningHerald;
let platform: FakeServer;
let context: BrowserContext;
let page: Page;
let platformDown = true;

/** a full-page screenshot from the top (a page scrolled by focus would draw the sticky header mid-page) */
const shot = async (name: string) => {
  await page.evaluate('window.scrollTo(0, 0)');
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
};
const go = async (hash: string) => {
  await page.goto(`${herald.url}/console#/${hash}`);
  await page.locator('main h1').first().waitFor();
};

beforeAll(async () => {
  // https://core.telegram.org/bots/api#making-requests: a blocked bot gets 403 {ok:false}, a sent message {ok:true, result}
  platform = await startFakeServer(() =>
    platformDown ? { status: 403, body: { ok: false, error_code: 403, description: 'Forbidden: bot was blocked by the user' } } : { body: { ok: true, result: { message_id: 7 } } },
  );
  herald = await startHerald(
    baseConfig({
      delivery: { baseDelayMs: 10, maxDelayMs: 50, maxAttempts: 2 },
      channels: { telegram: telegram.config(platform.url) },
      hooks: { mappings: [github, alertBurst] },
      agents: { list: [{ id: 'support', name: 'Support desk', description: 'Answers customers from the handbook' }] },
    }),
  );
  ({ context, page } = await launchChromium());
}, 60_000);

afterAll(async () => {
  await context?.close();
  await herald?.stop();
  await platform?.close();
});

describe('the console in Chromium', { timeout: 60_000 }, () => {
  it('signs in with the gateway token: an HttpOnly SameSite=Strict cookie, a strict CSP', async () => {
    // Chromium logs every answer of 4xx it fetches as a console error: the sign-in page's load fetches none
    const logged: string[] = [];
    const listen = (m: { type(): string; text(): string }) => void (['error', 'warning'].includes(m.type()) && logged.push(m.text()));
    page.on('console', listen);
    const response = await page.goto(`${herald.url}/console`);
    await page.getByLabel('Gateway token').waitFor();
    page.off('console', listen);
    expect(logged).toEqual([]);
    const csp = response!.headers()['content-security-policy'];
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    await page.getByLabel('Gateway token').fill('not-the-token-0123456789');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('That is not the gateway token.').waitFor();
    await page.getByLabel('Gateway token').fill(GATEWAY_TOKEN);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    const [cookie] = await context.cookies(herald.url);
    expect(cookie).toMatchObject({ name: 'herald_console', httpOnly: true, sameSite: 'Strict' });
    expect(cookie!.value).not.toContain(GATEWAY_TOKEN);
    await page.locator('#live.on').waitFor();
    await shot('overview');

    // a state-changing call without the CSRF header is refused, even with the cookie
    const refused = await page.evaluate(async () => (await fetch('/admin/runs/x/rerun', { method: 'POST' })).status);
    expect(refused).toBe(403);
  });

  it('shows a run appearing live after a webhook is posted, and opens its transcript', async () => {
    await go('runs');
    await page.getByText('No runs yet.').waitFor();
    const res = await fetch(`${herald.url}/hooks/agent`, {
      method: 'POST',
      headers: hookHeaders(),
      body: JSON.stringify({ message: 'Customer 42 asks about refunds', name: 'Refunds', channel: 'telegram', to: '555', wakeMode: 'next-heartbeat' }),
    });
    expect(res.status).toBe(202);
    const { runId } = (await res.json()) as { runId: string };
    // no reload: the server-sent events make the page reload its rows
    const row = page.getByRole('row').filter({ hasText: 'Refunds' });
    await row.getByText('succeeded').waitFor();
    await shot('runs');
    await row.getByRole('link').first().click();
    await page.getByRole('heading', { name: 'Run: Refunds' }).waitFor();
    expect(page.url()).toContain(runId);
    await expect.poll(() => page.locator('.transcript .msg.user').textContent()).toContain('Customer 42 asks about refunds');
    expect(await page.locator('.transcript .msg.assistant').count()).toBe(1);
    expect(await page.locator('pre.prompt').textContent()).toMatch(/EXTERNAL_UNTRUSTED_CONTENT/);
    await shot('run-detail');
  });

  it('retries a failed delivery against the fake channel', async () => {
    await go('deliveries?status=failed');
    const row = page.getByRole('row').filter({ hasText: 'telegram' });
    await row.getByText('failed', { exact: true }).waitFor({ timeout: 15_000 });
    const before = platform.requests.length;
    expect(before).toBeGreaterThan(0); // a 403 is final: no automatic retry
    platformDown = false;
    await page.getByLabel('Status').selectOption('');
    await row.getByRole('button', { name: 'Retry' }).click();
    await row.getByText('delivered', { exact: true }).waitFor({ timeout: 15_000 });
    expect(platform.requests.length).toBe(before + 1);
    expect(platform.requests.at(-1)!.json.chat_id).toBe('555');
    await shot('deliveries');
  });

  it('lists requests and the main session', async () => {
    await go('requests');
    await page.locator('tbody tr').first().waitFor();
    expect(await page.locator('tbody').textContent()).toContain('agent');
    await shot('requests');
    // open the request that started the run: its outcome, its run and that run's delivery
    await page.getByRole('row').filter({ hasText: 'agent' }).getByRole('link').first().click();
    await page.getByRole('heading', { name: 'Request' }).waitFor();
    const facts = page.locator('dl.facts');
    await expect.poll(() => facts.textContent()).toMatch(/Delivery\s*telegram\s*delivered/);
    expect(await facts.textContent()).toMatch(/Outcome\s*agent/);
    await shot('request-detail');
    await go('session');
    await page.locator('tbody tr').first().waitFor();
    expect(await page.locator('main').textContent()).toContain('Hook Refunds');
    // a run over a webhook's content: its summary reads as OpenClaw's, the flag shows beside it
    expect(await page.getByRole('row').filter({ hasText: 'Hook Refunds' }).first().textContent()).toMatch(/untrusted/);
    await shot('main-session');
  });

  it("shows a coalesced run's wait and its events in the run's detail", async () => {
    const post = async (text: string) =>
      (await (await fetch(`${herald.url}/hooks/alert-burst`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ text }) })).json()) as { runId: string; coalesced?: true };
    const first = await post('disk full on db-1');
    expect(await post('replication lag on db-2')).toEqual({ ok: true, runId: first.runId, coalesced: true });
    await go(`runs/${encodeURIComponent(first.runId)}`);
    const facts = page.locator('dl.facts');
    // not started before its window ends: the page follows it live
    await expect.poll(() => facts.textContent(), { timeout: 15_000 }).toMatch(/Status\s*succeeded/);
    expect(await facts.textContent()).toMatch(/Held back\s*for its coalescing window until .+ \(\d/);
    expect(await facts.textContent()).toMatch(/Coalesced\s*2 events/);
    expect(await page.locator('.transcript .msg.user').textContent()).toMatch(/Events that arrived together, in order:[\s\S]*1\. disk full on db-1[\s\S]*2\. replication lag on db-2/);
    await shot('run-coalesced');
  });

  it('shows the resolved action and the wrapped prompt change as a mapping is edited in the playground; JSONata errors point at the expression', async () => {
    // a retained request to pick as the sample
    await fetch(`${herald.url}/hooks/github`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ action: 'opened', issue: { title: 'Crash on start' } }) });
    await go('mappings');
    await page.getByRole('cell', { name: 'hooks.mappings[0]' }).waitFor();
    await shot('mappings');
    await page.getByRole('link', { name: 'github-issues' }).click();
    await page.getByRole('heading', { name: 'Playground' }).waitFor();
    await page.getByLabel('Sample').locator('option', { hasText: 'retained:' }).first().waitFor({ state: 'attached' });
    const retained = await page.getByLabel('Sample').locator('option', { hasText: 'retained:' }).first().getAttribute('value');
    await page.getByLabel('Sample').selectOption(retained!);
    const action = page.locator('#resolved-action');
    const prompt = page.locator('#wrapped-prompt');
    await expect.poll(() => action.textContent()).toContain('Issue Crash on start was opened');
    // beside the action, the message as the model would see it: inside the safety wrapper
    await expect.poll(() => prompt.textContent()).toContain('Issue Crash on start was opened');
    expect(await prompt.textContent()).toMatch(/^Task: GitHub \| Mapping: github-issues[\s\S]*<<<EXTERNAL_UNTRUSTED_CONTENT id="[0-9a-f]+">>>\nSource: Webhook[\s\S]*<<<END_EXTERNAL_UNTRUSTED_CONTENT/);

    const draft = page.getByLabel('Draft mapping');
    const text = (await draft.inputValue()).replace('Issue {{ issue.title }} was {{ action }}', 'New issue: {{ $uppercase(issue.title) }}');
    await draft.fill(text);
    await expect.poll(() => action.textContent()).toContain('New issue: CRASH ON START');
    await expect.poll(() => prompt.textContent()).toContain('New issue: CRASH ON START');
    expect(await prompt.textContent()).not.toContain('was opened');
    await shot('playground');

    // a syntax error is pointed at in its expression
    await draft.fill(text.replace('$uppercase(issue.title)', 'issue.title +'));
    await page.locator('.fault').filter({ hasText: 'messageTemplate' }).waitFor();
    expect(await page.locator('.fault pre.expr').textContent()).toContain('issue.title +');
    await shot('playground-error');

    // so is one that only fails on this payload, and the draft shows where it is
    await draft.fill(text.replace('$uppercase(issue.title)', '$number(issue.title)'));
    await page.locator('.fault').filter({ hasText: 'Unable to cast value to a number' }).waitFor();
    expect(await page.locator('.fault pre.expr').textContent()).toContain('$number(issue.title)');
    await page.getByRole('button', { name: 'Show in the draft' }).click();
    expect(await draft.evaluate((el) => { const t = el as unknown as { value: string; selectionStart: number; selectionEnd: number }; return t.value.slice(t.selectionStart, t.selectionEnd); })).toBe('$number(issue.title)');

    await draft.fill(text);
    await page.getByRole('button', { name: 'Backtest' }).click();
    await page.getByText(/1 retained request\(s\) of github; 1 change\./).waitFor();
    await expect.poll(() => action.textContent()).toContain('New issue: CRASH ON START');
    await shot('playground-backtest');
  });

  it('uploads a document with a progress bar, and deletes it', async () => {
    await go('knowledge');
    await page.getByLabel('Agent').locator('option[value="support"]').waitFor({ state: 'attached' });
    await page.getByLabel('Document').setInputFiles({ name: 'refunds.md', mimeType: 'text/markdown', buffer: Buffer.from('# Refunds\n\nRefunds are issued within 14 days of purchase.\n') });
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.getByText(/Uploaded refunds\.md: \d+ chunk/).waitFor();
    expect(await page.locator('progress').evaluate((p) => (p as unknown as { value: number }).value)).toBe(1);
    await page.getByRole('cell', { name: 'refunds.md' }).waitFor();
    await shot('knowledge');
    page.once('dialog', (d) => d.accept());
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No documents for this agent yet.').waitFor();
  });

  it('creates an API key shown once, and revokes it', async () => {
    await go('keys');
    await page.getByLabel('Name').fill('ci-bot');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = await page.locator('#new-key').inputValue();
    expect(key).toMatch(/^hsk_/);
    expect((await fetch(`${herald.url}/v1/agents`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    await shot('keys');
    await go('agents');
    await page.getByRole('cell', { name: 'Support desk' }).waitFor();
    await shot('agents');
    await go('keys');
    await page.getByRole('cell', { name: 'ci-bot' }).waitFor();
    expect(await page.content()).not.toContain(key);
    page.once('dialog', (d) => d.accept());
    await page.getByRole('row').filter({ hasText: 'ci-bot' }).getByRole('button', { name: 'Revoke' }).click();
    await page.getByText('Revoked ci-bot.').waitFor();
    expect((await fetch(`${herald.url}/v1/agents`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(401);
  });

  it('works on a phone and from the keyboard, and signs out', async () => {
    await page.setViewportSize({ width: 390, height: 800 });
    await go('overview');
    const menu = page.getByRole('button', { name: 'Menu' });
    await menu.click();
    await page.getByRole('link', { name: 'Runs' }).waitFor();
    await shot('phone-menu');
    await page.getByRole('link', { name: 'Runs' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    // the menu folds away and focus follows to the page's content, not lost with the hidden link
    expect(await page.evaluate('document.activeElement.id')).toBe('main');
    await shot('phone-runs');
    await page.setViewportSize({ width: 1280, height: 860 });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Gateway token').waitFor();
    // the old cookie, replayed, is refused
    expect(await page.evaluate(async () => (await fetch('/admin/runs')).status)).toBe(401);
  });
});
