import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startToolCallingModel, type ToolCallingModel } from '../helpers/fake-tool-calling-model.js';
import { API_KEY, GATEWAY_TOKEN, eventually, hookHeaders, startHerald, baseConfig, type RunningHerald } from '../helpers/start-herald.js';
import { launchChromium, signIn, SHOTS } from './chromium.js';
import { captureIo } from '../cli/capture-io.js';
import { main } from '../helpers/builtins.js';

/**
 * What a run's tools did, in Chromium: the Runs list's Tools column and filter tell a run whose
 * call was refused from one whose calls ran, and the run page says the run hit tools.maxToolCalls.
 * The model is the fake that speaks OpenAI's tool_calls; the runs are real hook runs.
 */
let herald: RunningHerald;
let model: ToolCallingModel;
let context: BrowserContext;
let page: Page;
const ids: Record<string, string> = {};

beforeAll(async () => {
  // "loop" calls search_knowledge until told not to; "invent" calls a tool nobody granted, once
  model = await startToolCallingModel((body) => {
    const asked = String(body.messages.find((m: any) => m.role === 'user')?.content ?? '');
    const answered = body.messages.some((m: any) => m.role === 'tool');
    if (asked.includes('invent')) return answered ? { text: 'could not' } : { calls: [{ name: 'github__delete_repo', arguments: {} }] };
    return body.tool_choice === 'none' ? { text: 'giving up on tools' } : { calls: [{ name: 'herald__search_knowledge', arguments: { query: 'again' } }] };
  });
  herald = await startHerald(
    baseConfig({
      models: { providers: { fake: { api: 'openai', baseUrl: model.url, apiKey: 'sk-fake' } } },
      agents: { defaults: { model: 'fake/tool-model' }, list: [{ id: 'ops', tools: { servers: ['herald'] } }] },
      tools: { maxToolCalls: 2 },
    }),
  );
  for (const name of ['loop', 'invent']) {
    const res = await fetch(`${herald.url}/hooks/agent`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ message: `please ${name}`, name, deliver: false }) });
    ids[name] = ((await res.json()) as { runId: string }).runId;
  }
  await eventually(async () => {
    const res = await fetch(`${herald.url}/admin/runs`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
    const { data } = (await res.json()) as { data: { status: string }[] };
    return data.length === 2 && data.every((r) => r.status === 'succeeded');
  }, 20_000);
  ({ context, page } = await launchChromium());
  await signIn(page, herald.url);
}, 60_000);

afterAll(async () => {
  await context?.close();
  await herald?.stop();
  await model?.close();
});

const rowOf = (name: string) => page.locator('main tbody tr', { hasText: name });

describe('herald runs list', () => {
  it('prints what each run\'s tools did, a header row first, and filters on it', async () => {
    const runs = async (...args: string[]) => {
      const io = captureIo();
      const code = await main(['runs', 'list', ...args, '--config', herald.configFile, '--url', herald.url], io.io);
      return { code, out: io.out(), err: io.err() };
    };
    const all = await runs();
    expect(all.code).toBe(0);
    const [header, ...rows] = all.out.trimEnd().split('\n');
    expect(header).toMatch(/^TIME +STATUS +NAME +MAPPING +TOOLS +QUEUED +PERSON +WORKED +ID$/);
    expect(rows.map((r) => r.split(/ {2,}/).slice(1, 5)).sort()).toEqual([
      ['succeeded', 'invent', 'agent', '1, 1 refused'],
      ['succeeded', 'loop', 'agent', '2'],
    ]);
    // queued and worked for, no wait for a person (none was asked)
    for (const r of rows) expect(r.split(/ {2,}/).slice(5, 8)).toEqual([expect.stringMatching(/^\d+(\.\d)? m?s$/), '-', expect.stringMatching(/^\d+(\.\d)? m?s$/)]);
    const refused = await runs('--tools', 'refused');
    expect(refused.out).toContain(ids.invent);
    expect(refused.out).not.toContain(ids.loop);
    const bad = await runs('--tools', 'some');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--tools must be one of any, waiting, refused, failed');
  });
});

describe('tool calls on the Runs pages in Chromium', { timeout: 60_000 }, () => {
  it('the list shows what tools did and filters on it; the run page says the limit was hit', async () => {
    await page.goto(`${herald.url}/console#/runs`);
    await page.getByRole('heading', { name: 'Runs' }).waitFor({ timeout: 10_000 });
    await expect.poll(() => rowOf('invent').innerText({ timeout: 1000 }).catch(() => ''), { timeout: 10_000 }).toContain('1 call · 1 refused');
    expect(await rowOf('loop').innerText()).toContain('2 calls');
    expect(await rowOf('loop').innerText()).not.toContain('refused');
    await page.screenshot({ path: path.join(SHOTS, 'runs-tools.png'), fullPage: true });

    await page.getByLabel('Tools').selectOption('refused');
    await expect.poll(() => page.locator('main tbody tr').count(), { timeout: 10_000 }).toBe(1);
    expect(await page.locator('main tbody tr').first().innerText()).toContain('invent');

    await page.goto(`${herald.url}/console#/runs/${ids.loop}`);
    const facts = page.locator('dl.facts');
    await expect.poll(() => facts.innerText({ timeout: 1000 }).catch(() => ''), { timeout: 10_000 }).toContain('stopped at the limit of 2 tool calls (tools.maxToolCalls)');
    expect(await facts.innerText()).toContain('2 calls');

    // the transcript shows each call where the model asked for it, never an empty assistant box, and each result by its tool
    const transcript = page.locator('main ol.transcript');
    const asked = transcript.locator('li.msg.assistant', { has: page.locator('ul.calls') });
    await expect.poll(() => asked.count(), { timeout: 10_000 }).toBe(2);
    expect(await asked.first().innerText()).toMatch(/called herald__search_knowledge\s*\{\s*"query": "again"\s*\}/);
    for (const box of await transcript.locator('li.msg.assistant').all()) expect((await box.innerText()).replace(/^assistant · /i, '').trim()).not.toBe('');
    expect(await transcript.locator('li.msg.tool').first().innerText()).toMatch(/tool result · herald__search_knowledge/i);
  });

  it("a chat completion's tool calls show in its session's transcript", async () => {
    const res = await fetch(`${herald.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'ops', messages: [{ role: 'user', content: 'please loop' }] }),
    });
    expect(res.status).toBe(200);
    const { conversation_id } = (await res.json()) as { conversation_id: string };
    await page.goto(`${herald.url}/console#/sessions/${encodeURIComponent(`chat:${conversation_id}`)}`);
    const transcript = page.locator('main ol.transcript');
    await expect.poll(() => transcript.locator('li.msg.assistant ul.calls').count(), { timeout: 10_000 }).toBe(2);
    expect(await transcript.locator('li.msg.assistant ul.calls').first().innerText()).toContain('called herald__search_knowledge');
    expect(await transcript.locator('li.msg.tool').count()).toBe(2);
    await page.screenshot({ path: path.join(SHOTS, 'chat-tool-calls.png'), fullPage: true });
  });

  it("a stored response's tool calls show on its Responses page, reached from the nav", async () => {
    const res = await fetch(`${herald.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'ops', input: 'please loop' }),
    });
    expect(res.status).toBe(200);
    const { id } = (await res.json()) as { id: string };
    await page.goto(`${herald.url}/console#/overview`);
    await page.getByRole('link', { name: 'Responses', exact: true }).click();
    await page.getByRole('heading', { name: 'Responses' }).waitFor({ timeout: 10_000 });
    const row = page.locator('main tbody tr', { hasText: id });
    await expect.poll(() => row.innerText({ timeout: 1000 }).catch(() => ''), { timeout: 10_000 }).toContain('2 calls');
    await row.getByRole('link', { name: id }).click();
    await page.getByRole('heading', { name: `Response ${id}` }).waitFor({ timeout: 10_000 });
    const transcript = page.locator('main ol.transcript');
    await expect.poll(() => transcript.locator('li.msg.assistant ul.calls').count(), { timeout: 10_000 }).toBe(2);
    expect(await transcript.locator('li.msg.assistant ul.calls').first().innerText()).toMatch(/called herald__search_knowledge\s*\{\s*"query": "again"\s*\}/);
    expect(await transcript.locator('li.msg.tool').first().innerText()).toMatch(/tool result · herald__search_knowledge/i);
    expect(await transcript.locator('li.msg.user').innerText()).toContain('please loop');
    await page.screenshot({ path: path.join(SHOTS, 'response-tool-calls.png'), fullPage: true });
  });
});
