import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startToolCallingModel, type ToolCallingModel } from '../helpers/fake-tool-calling-model.js';
import { GATEWAY_TOKEN, baseConfig, eventually, hookHeaders, startHerald, type RunningHerald } from '../helpers/start-herald.js';
import { launchChromium, signIn, SHOTS } from './chromium.js';

/**
 * "Try a change": `POST /admin/evals` (a small eval answered with its report, a long one run as a
 * job followed with `GET /admin/evals/{id}`) and the console page over it, in Chromium. The
 * recording is two hook runs of an agent whose model (a fake speaking OpenAI's chat API) answers
 * otherwise when its instructions say CANDIDATE.
 */
let herald: RunningHerald;
let model: ToolCallingModel;
let context: BrowserContext;
let page: Page;
const admin = { authorization: `Bearer ${GATEWAY_TOKEN}`, 'content-type': 'application/json' };

beforeAll(async () => {
  model = await startToolCallingModel((body) => {
    const system = String(body.messages.find((m: any) => m.role === 'system')?.content ?? '');
    const user = String(body.messages.findLast((m: any) => m.role === 'user')?.content ?? '');
    const order = /order (\d+)/.exec(user)?.[1];
    return { text: system.includes('CANDIDATE') ? `Refund order ${order} today.` : `Order ${order} noted.` };
  });
  herald = await startHerald(
    baseConfig({
      models: { providers: { fake: { api: 'openai', baseUrl: model.url, apiKey: 'sk-fake' } } },
      agents: { defaults: { model: 'fake/chat' }, list: [{ id: 'support', name: 'Support', instructions: 'You help customers.' }] },
      hooks: { mappings: [{ id: 'orders', match: { path: 'orders' }, action: 'agent', agentId: 'support', messageTemplate: 'order {{ id }} was returned', deliver: false, retainPayloads: true }] },
    }),
  );
  const runs: string[] = [];
  for (const id of [101, 102]) {
    const res = await fetch(`${herald.url}/hooks/orders`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ id }) });
    runs.push(((await res.json()) as { runId: string }).runId);
  }
  for (const id of runs) {
    await eventually(async () => ((await (await fetch(`${herald.url}/admin/runs/${id}`, { headers: admin })).json()) as { status: string }).status === 'succeeded', 20_000);
  }
  ({ context, page } = await launchChromium());
  await signIn(page, herald.url);
}, 90_000);

afterAll(async () => {
  await context?.close();
  await herald?.stop();
  await model?.close();
});

const post = (body: unknown) => fetch(`${herald.url}/admin/evals`, { method: 'POST', headers: admin, body: JSON.stringify(body) });

describe('POST /admin/evals', { timeout: 60_000 }, () => {
  it('answers a small eval with its report: each request side by side, what changed, nothing recorded', async () => {
    const runsBefore = ((await (await fetch(`${herald.url}/admin/runs`, { headers: admin })).json()) as { data: unknown[] }).data.length;
    const res = await post({ selection: { mapping: 'orders', limit: 10 }, candidate: { overrides: { 'agents.support.instructions': 'CANDIDATE: offer refunds' } } });
    expect(res.status).toBe(200);
    const report = (await res.json()) as any;
    expect(report.summary).toMatchObject({ requests: 2, unchanged: 0, changed: { reply: 2 } });
    expect(report.casesCut).toBe(false);
    const replies = report.cases.map((c: any) => [c.recorded.reply, c.candidate.reply]).sort();
    expect(replies).toEqual([
      ['Order 101 noted.', 'Refund order 101 today.'],
      ['Order 102 noted.', 'Refund order 102 today.'],
    ]);
    expect(((await (await fetch(`${herald.url}/admin/runs`, { headers: admin })).json()) as { data: unknown[] }).data).toHaveLength(runsBefore);
  });

  it('runs a longer eval as a job: 202, its progress, then its report', async () => {
    const res = await post({ selection: { limit: 10 }, candidate: { overrides: { 'agents.support.instructions': 'CANDIDATE' } }, run: { repeat: 20 } });
    expect(res.status).toBe(202);
    const job = (await res.json()) as any;
    expect(job).toMatchObject({ id: expect.stringMatching(/^ev_/), status: 'running', progress: { total: 2 } });
    const done = await eventually(async () => {
      const view = (await (await fetch(`${herald.url}/admin/evals/${job.id}`, { headers: admin })).json()) as any;
      return view.status !== 'running' ? view : undefined;
    }, 30_000);
    expect(done).toMatchObject({ status: 'succeeded', progress: { done: 2, total: 2 }, report: { summary: { requests: 2, changed: { reply: 2 } } } });
    expect(done.report.cases[0].repeats).toEqual({ runs: 20, distinctReplies: 1, distinctToolCalls: 1 });
    expect((await fetch(`${herald.url}/admin/evals/ev_nothing`, { headers: admin })).status).toBe(404);
  });

  it('refuses a candidate that does not load, naming the fault, and a body off its schema, naming the field', async () => {
    const missing = await post({ candidate: { overrides: { 'agents.nobody.instructions': 'x' } } });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ code: 'HERALD_BAD_REQUEST', error: expect.stringContaining('candidate: agents.nobody.instructions: no agent "nobody" in agents.list') });
    const wrong = await post({ run: { repeat: 50 } });
    expect(wrong.status).toBe(400);
    expect(JSON.stringify(await wrong.json())).toContain('repeat');
  });
});

describe('Try a change, in Chromium', { timeout: 60_000 }, () => {
  it("edits an agent's prompt, runs, and shows each request's recorded and candidate sides", async () => {
    await page.goto(`${herald.url}/console#/evals`);
    await page.getByRole('heading', { name: 'Try a change' }).waitFor({ timeout: 10_000 });
    await page.getByLabel('Mapping', { exact: true }).fill('orders');
    await expect.poll(() => page.locator('select[name="agent"] option').count(), { timeout: 10_000 }).toBeGreaterThan(1);
    await page.locator('select[name="agent"]').selectOption('support');
    await page.getByLabel('Prompt').fill('CANDIDATE: offer refunds');
    await page.getByRole('button', { name: 'Run' }).click();
    const rows = page.locator('main tbody tr');
    await expect.poll(() => rows.count(), { timeout: 20_000 }).toBe(2);
    expect(await page.locator('p.summary').innerText()).toBe('2 requests replayed: 0 unchanged, changed: 2 reply');
    const row = rows.filter({ hasText: 'Order 101 noted.' });
    const cells = row.locator('td');
    expect(await cells.nth(1).innerText()).toContain('Order 101 noted.');
    expect(await cells.nth(2).innerText()).toContain('Refund order 101 today.');
    expect(await cells.nth(3).innerText()).toBe('reply');
    await page.screenshot({ path: path.join(SHOTS, 'try-a-change.png'), fullPage: true });
  });
});
