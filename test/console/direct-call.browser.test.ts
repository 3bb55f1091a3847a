import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startToolCallingModel, type ToolCallingModel } from '../helpers/fake-tool-calling-model.js';
import { baseConfig, eventually, hookHeaders, startHerald, type RunningHerald } from '../helpers/start-herald.js';
import { startTicketServer, type TicketServer } from '../tools/ticket-server.js';
import { launchChromium, signIn, SHOTS, succeededRun } from './chromium.js';

/**
 * A mapping's direct tool call (`action: "tool"`) on the run page, in Chromium: the call itself
 * (its tool, its arguments, its result in the open), no prompt and no model turn, since no model
 * was asked. The MCP server is the SDK's (the ticket server), the run a real hook run.
 */
let herald: RunningHerald;
let model: ToolCallingModel;
let tickets: TicketServer;
let context: BrowserContext;
let page: Page;
let runId: string;

beforeAll(async () => {
  model = await startToolCallingModel();
  tickets = await startTicketServer();
  herald = await startHerald(
    baseConfig({
      models: { providers: { fake: { api: 'openai', baseUrl: model.url, apiKey: 'sk-fake' } } },
      agents: { defaults: { model: 'fake/tool-model' } },
      tools: { mcpServers: { tickets: { url: tickets.url } } },
      hooks: { mappings: [{ id: 'lookup', name: 'Ticket lookup', match: { path: 'tickets' }, action: 'tool', tool: 'tickets__lookup_ticket', arguments: { id: 'T-{{ number }}' } }] },
    }),
  );
  await eventually(() => herald.gateway.mcp.tools().length === 2, 30_000);
  const res = await fetch(`${herald.url}/hooks/tickets`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ number: 41 }) });
  runId = ((await res.json()) as { runId: string }).runId;
  await succeededRun(herald.url, runId, 20_000);
  ({ context, page } = await launchChromium());
  await signIn(page, herald.url);
}, 90_000);

afterAll(async () => {
  await context?.close();
  await herald?.stop();
  await tickets?.close();
  await model?.close();
});

describe('a direct tool call on the run page in Chromium', { timeout: 60_000 }, () => {
  it('shows the call with its arguments and result, and no model turn', async () => {
    await page.goto(`${herald.url}/console#/runs/${runId}`);
    await page.getByRole('heading', { name: 'Tool call (direct, no model)' }).waitFor({ timeout: 10_000 });
    const call = page.locator('ol.calls.direct li.call');
    await expect.poll(() => call.count()).toBe(1);
    const text = await call.innerText();
    expect(text).toContain('lookup_ticket');
    expect(text).toContain('on tickets');
    expect(text).toContain('succeeded');
    expect(text).toContain('"id": "T-41"');
    // the result is open: what the server answered, as the reply was made of it
    expect(await call.locator('details', { hasText: 'Result' }).locator('pre').innerText()).toBe('ticket T-41 is open');
    expect(await page.locator('main').innerText()).toContain('tickets__lookup_ticket called by its mapping');
    expect(await page.getByRole('heading', { name: 'Prompt as the model saw it' }).count()).toBe(0);
    expect(await page.getByRole('heading', { name: 'Model turns and tool calls' }).count()).toBe(0);
    await page.screenshot({ path: path.join(SHOTS, 'run-direct-call.png'), fullPage: true });
    expect(model.requests).toHaveLength(0);
  });
});
