import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { dropSchema, requirePostgres, testPgUrl, uniqueSchema } from '../helpers/postgres.js';
import { API_KEY, baseConfig, GATEWAY_TOKEN, startHerald, type RunningHerald } from '../helpers/start-herald.js';
import { completion } from '../models/fake-openai.js';
import { launchChromium, signIn, SHOTS } from './chromium.js';

/**
 * The Overview's Trouble in Chromium on replica B of two sharing PostgreSQL: a model provider
 * refusing replica A's calls shows live, naming A, and leaves once A's calls get through. The
 * provider is a fake OpenAI-compatible server answering 401 as
 * https://platform.openai.com/docs/guides/error-codes#api-errors documents.
 */
const schema = uniqueSchema('herald_trouble');
const heralds: RunningHerald[] = [];
let upstream: FakeServer;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  delete process.env.OPENAI_API_KEY;
  await requirePostgres();
  upstream = await startFakeServer(() => ({ status: 401, body: { error: { message: 'Incorrect API key provided: sk-wrong.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } } }));
  const config = baseConfig({
    storage: { postgres: { url: testPgUrl(), schema, poolSize: 4 } },
    models: { providers: { up: { api: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'sk-wrong' } } },
    agents: { defaults: { model: 'up/m' } },
  });
  // one after the other: the first migrates the schema
  heralds.push(await startHerald(config));
  heralds.push(await startHerald(config));
  ({ context, page } = await launchChromium());
  await signIn(page, heralds[1]!.url);
}, 60_000);

afterAll(async () => {
  await context?.close();
  for (const h of heralds) await h.stop();
  await upstream?.close();
  await dropSchema(schema);
});

const trouble = () => page.locator('section[aria-label="Trouble"]');
const item = (kind: string) => trouble().locator('li.trouble-item').filter({ has: page.locator('.badge', { hasText: kind }) });
const chat = (herald: RunningHerald) =>
  fetch(`${herald.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'main', messages: [{ role: 'user', content: 'hello' }] }),
  }).then(async (res) => (await res.arrayBuffer(), res.status));

describe("the Overview's Trouble across replicas in Chromium", { timeout: 90_000 }, () => {
  it("shows on replica B, live, the provider refusing replica A's calls, naming A", async () => {
    const [a] = heralds as [RunningHerald, RunningHerald];
    await trouble().getByText(/^All clear/).waitFor();
    const aSelf = ((await (await fetch(`${a.url}/admin/overview`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).json()) as any).trouble.self;

    expect(await chat(a)).not.toBe(200);
    await item('model provider').waitFor({ timeout: 30_000 });
    const text = await item('model provider').innerText();
    expect(text).toMatch(/up · 1 failure in a row · 401 Incorrect API key provided: \*\*\*/);
    expect(text).toContain(`replica ${aSelf}`);
    expect(text).not.toContain('stale');
    await page.screenshot({ path: path.join(SHOTS, 'overview-trouble-replicas.png'), fullPage: true });

    upstream.handle(() => ({ body: completion('hello') }));
    expect(await chat(a)).toBe(200);
    await trouble().getByText(/^All clear/).waitFor({ timeout: 30_000 });
  });
});
