import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { GATEWAY_TOKEN, baseConfig, eventually, startHerald, type RunningHerald } from '../helpers/start-herald.js';
import { launchChromium, signIn, SHOTS } from './chromium.js';

/** The Schedules page in Chromium: run now, disable and delete, each checked through the admin API and what reached the webhook channel's fake. */
let herald: RunningHerald;
let inbox: FakeServer;
let context: BrowserContext;
let page: Page;

async function admin(p: string, method = 'GET', body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${herald.url}/admin${p}`, { method, headers: { authorization: `Bearer ${GATEWAY_TOKEN}`, 'content-type': 'application/json' }, ...(body !== undefined && { body: JSON.stringify(body) }) });
  return { status: res.status, body: await res.json() };
}

const yearly = { kind: 'cron', expr: '0 0 1 1 *', tz: 'UTC' };
const job = (id: string, name: string) => ({ id, name, schedule: yearly, sessionTarget: 'isolated', payload: { kind: 'agentTurn', message: `${name}, please` }, delivery: { mode: 'webhook', to: 'ops' } });

const rowOf = (id: string) => page.locator('main table').first().locator('tbody tr', { hasText: id });
const textOf = (locator: ReturnType<Page['locator']>) => locator.innerText({ timeout: 1000 }).catch(() => '');

beforeAll(async () => {
  // the webhook channel's receiver answers 200 (docs/channels.md: any 2xx is delivered)
  inbox = await startFakeServer(() => ({ status: 200, body: { ok: true } }));
  herald = await startHerald(baseConfig({
    channels: { webhook: { url: `${inbox.url}/inbox` } },
    // a tool server no fire in this test reaches (the toolCall job fires yearly): the job only needs it configured
    tools: { mcpServers: { tickets: { url: 'http://127.0.0.1:9/mcp' } } },
    schedules: { jobs: [
      { id: 'nightly', name: 'Nightly', schedule: yearly, sessionTarget: 'main', payload: { kind: 'systemEvent', text: 'night' } },
      { id: 'export', schedule: yearly, sessionTarget: 'isolated', payload: { kind: 'toolCall', tool: 'tickets__export_week', arguments: { format: 'csv' } } },
    ] },
  }));
  for (const [id, name] of [['report', 'Report'], ['sweep', 'Sweep'], ['old', 'Old']]) expect((await admin('/schedules', 'POST', job(id!, name!))).status).toBe(201);
  // a one-shot 2 h 51 min (and a half) away: its next fire is told to the minute
  const soon = { id: 'soon', schedule: { kind: 'at', at: new Date(Date.now() + (171 * 60 + 30) * 1000).toISOString() }, sessionTarget: 'isolated', payload: { kind: 'agentTurn', agentId: 'main', message: 'Check the supplier answered the claim about the damaged pallets from last week' }, delivery: { mode: 'none' } };
  expect((await admin('/schedules', 'POST', soon)).status).toBe(201);
  ({ context, page } = await launchChromium());
  await signIn(page, herald.url);
}, 60_000);

afterAll(async () => {
  await context?.close();
  await herald?.stop();
  await inbox?.close();
});

describe('the Schedules page in Chromium', { timeout: 60_000 }, () => {
  it('lists the jobs with their next fire; run now, disable and delete act on them', async () => {
    await page.getByRole('link', { name: 'Schedules', exact: true }).click();
    await page.getByRole('heading', { name: 'Schedules' }).waitFor({ timeout: 10_000 });
    await expect.poll(() => textOf(rowOf('report')), { timeout: 10_000 }).toContain('cron 0 0 1 1 * (UTC)');
    expect(await textOf(rowOf('report'))).toContain('none yet');
    expect(await textOf(rowOf('nightly'))).toContain('edit the config to change it');

    // "Does" tells jobs apart: the agent and its message's start, the tool and its arguments, the event's text
    const does = (id: string) => textOf(rowOf(id).locator('td[data-label="Does"]'));
    const defaultAgent = (await admin('/agents')).body.defaultAgentId;
    expect(await does('report')).toBe(`run of ${defaultAgent} “Report, please” · webhook to ops`);
    expect(await does('soon')).toBe('run of main “Check the supplier answered the claim about the damaged…”');
    expect(await does('export')).toBe('calls tickets__export_week {"format":"csv"}');
    expect(await does('nightly')).toBe('main-session event “night”');
    // a fire 2 h 51 min away says so, not "in 2 h"
    expect(await textOf(rowOf('soon').locator('td[data-label="Next fire"]'))).toBe('in 2 h 51 min');

    // run now: the job's run is made and its reply reaches the webhook channel
    await rowOf('report').getByRole('button', { name: 'Run now' }).click();
    await page.getByText('Ran report now.').waitFor({ timeout: 10_000 });
    const sent = await eventually(() => inbox.requests.find((r) => (r.json as { sessionKey?: string }).sessionKey === 'cron:report'));
    const { runId } = sent.json as { runId: string };
    const fires = (await admin('/schedules/report/runs')).body.data;
    expect(fires).toMatchObject([{ source: 'schedule report', outcome: 'dispatched', detail: 'run now', run: { id: runId, status: 'succeeded' } }]);
    // the page shows the fire and its run, live
    await expect.poll(() => textOf(rowOf('report')), { timeout: 10_000 }).toContain('dispatched · succeeded');
    await expect.poll(() => textOf(page.locator('main table').nth(1)), { timeout: 10_000 }).toContain('schedule report');
    await page.screenshot({ path: path.join(SHOTS, 'schedules.png'), fullPage: true });

    // disable: stored disabled, no next fire; enable again gives it one
    await rowOf('sweep').getByRole('button', { name: 'Disable' }).click();
    await page.getByText('Disabled sweep.').waitFor({ timeout: 10_000 });
    expect((await admin('/schedules/sweep')).body).toMatchObject({ enabled: false, nextDueAt: null });
    await expect.poll(() => textOf(rowOf('sweep')), { timeout: 10_000 }).toContain('disabled');
    await rowOf('sweep').getByRole('button', { name: 'Enable' }).click();
    await page.getByText('Enabled sweep.').waitFor({ timeout: 10_000 });
    expect((await admin('/schedules/sweep')).body).toMatchObject({ enabled: true, nextDueAt: expect.any(String) });

    // delete, once confirmed: gone from the admin API and the page
    page.once('dialog', (dialog) => void dialog.accept());
    await rowOf('old').getByRole('button', { name: 'Delete' }).click();
    await page.getByText('Deleted old.').waitFor({ timeout: 10_000 });
    expect((await admin('/schedules/old')).status).toBe(404);
    await expect.poll(() => rowOf('old').count(), { timeout: 10_000 }).toBe(0);
  });
});
