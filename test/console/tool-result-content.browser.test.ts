import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startToolCallingModel, type ToolCallingModel } from '../helpers/fake-tool-calling-model.js';
import { hookHeaders, startHerald, baseConfig, type RunningHerald } from '../helpers/start-herald.js';
import { startMcpHttpServer, type McpHttpServer } from '../tools/mcp-http-server.js';
import { launchChromium, signIn, SHOTS, succeededRun } from './chromium.js';

/**
 * A tool result's content on the run page, in Chromium: a real McpServer's tool answers an image,
 * audio, links, an embedded resource and structured content; the page shows each kind, and never
 * draws or links what the server names unsafely (an SVG image, a javascript: link).
 */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"></svg>').toString('base64');

let herald: RunningHerald;
let model: ToolCallingModel;
let remote: McpHttpServer;
let context: BrowserContext;
let page: Page;
let runId: string;

beforeAll(async () => {
  remote = await startMcpHttpServer((mcp) => {
    mcp.registerTool('report', { description: 'a report', outputSchema: { pages: z.number() }, annotations: { readOnlyHint: true } }, async () => ({
      content: [
        { type: 'text', text: 'The report.' },
        { type: 'image', mimeType: 'image/png', data: PNG },
        { type: 'image', mimeType: 'image/svg+xml', data: SVG },
        { type: 'audio', mimeType: 'audio/wav', data: 'UklGRg==' },
        { type: 'resource_link', uri: 'https://example.com/report.pdf', name: 'report.pdf', mimeType: 'application/pdf' },
        { type: 'resource_link', uri: 'javascript:alert(1)', name: 'click me' },
        { type: 'resource', resource: { uri: 'file:///notes.txt', mimeType: 'text/plain', text: 'notes inside' } },
      ],
      structuredContent: { pages: 3 },
    }));
  });
  model = await startToolCallingModel((body) => (body.messages.some((m: any) => m.role === 'tool') ? { text: 'seen' } : { calls: [{ name: 'docs__report', arguments: {} }] }));
  herald = await startHerald(
    baseConfig({
      models: { providers: { fake: { api: 'openai', baseUrl: model.url, apiKey: 'sk-fake' } } },
      agents: { defaults: { model: 'fake/tool-model' }, list: [{ id: 'ops', tools: { servers: ['docs'] } }] },
      tools: { mcpServers: { docs: { url: remote.url } } },
    }),
  );
  const res = await fetch(`${herald.url}/hooks/agent`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ message: 'the report', name: 'report', deliver: false }) });
  runId = ((await res.json()) as { runId: string }).runId;
  await succeededRun(herald.url, runId, 30_000);
  ({ context, page } = await launchChromium());
  await signIn(page, herald.url);
}, 90_000);

afterAll(async () => {
  await context?.close();
  await herald?.stop();
  await model?.close();
  await remote?.close();
});

describe("a tool result's content on the run page in Chromium", { timeout: 60_000 }, () => {
  it('shows each kind: a thumbnail, an audio note, links, the embedded resource, the structured JSON; nothing unsafe', async () => {
    await page.goto(`${herald.url}/console#/runs/${runId}`);
    const content = page.locator('ul.result-content');
    await content.waitFor({ timeout: 10_000 });
    const kinds = await content.locator('> li').evaluateAll((items) => items.map((li) => li.getAttribute('data-kind')));
    expect(kinds).toEqual(['image', 'image', 'audio', 'resource_link', 'resource_link', 'resource', 'structured']);
    // the PNG drawn from its data, the SVG not drawn at all
    const images = await content.locator('img').evaluateAll((imgs) => imgs.map((img) => [(img as unknown as { src: string }).src, (img as unknown as { naturalWidth: number }).naturalWidth]));
    expect(images).toEqual([[`data:image/png;base64,${PNG}`, 1]]);
    expect(await content.locator('> li').nth(1).innerText()).toContain('Image image/svg+xml');
    expect(await content.locator('> li').nth(2).innerText()).toContain('Audio audio/wav, 4 bytes');
    // an http(s) link opens apart from the console; a javascript: one is only text
    const links = await content.locator('a').evaluateAll((as) => as.map((a) => [a.getAttribute('href'), a.getAttribute('rel'), a.textContent]));
    expect(links).toEqual([['https://example.com/report.pdf', 'noopener noreferrer', 'report.pdf']]);
    expect(await content.locator('> li').nth(4).innerText()).toContain('javascript:alert(1)');
    expect(await content.locator('> li').nth(5).innerText()).toContain('Embedded resource file:///notes.txt');
    expect(await content.locator('> li').nth(6).innerText()).toContain('"pages": 3');
    await page.screenshot({ path: path.join(SHOTS, 'run-tool-result-content.png'), fullPage: true });
  });
});
