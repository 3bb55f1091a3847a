import { ResourceListChangedNotificationSchema, ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { testApp, type TestApp } from '../http/app-fixture.js';
import { API_KEY, eventually } from '../helpers/start-herald.js';
import { startMcpHttpServer, type McpHttpServer } from '../tools/mcp-http-server.js';
import { connectClient } from './mcp-client.js';

/**
 * What /mcp tells its clients unasked: a subscribed document resource removed
 * (notifications/resources/updated), a document added or removed (resources/list_changed, only
 * to keys that may ask its agent), an upstream server's tools changed (tools/list_changed).
 */
const OTHER_KEY = 'sk-other-0123456789abcdef0123';
let upstream: McpHttpServer | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

async function herald(): Promise<TestApp> {
  upstream = await startMcpHttpServer((server) => {
    server.registerTool('lookup', { description: 'Reads a thing', inputSchema: { id: z.string() }, annotations: { readOnlyHint: true } }, async ({ id }) => ({ content: [{ type: 'text', text: `thing ${id}` }] }));
  });
  return testApp({
    platform: {
      mcp: { enabled: true },
      apiKeys: [
        { name: 'test', key: API_KEY, agents: ['support'], tools: { servers: ['things'] } },
        { name: 'other', key: OTHER_KEY, agents: ['main'] },
      ],
    },
    agents: { list: [{ id: 'main' }, { id: 'support', name: 'Support' }] },
    tools: { mcpServers: { things: { url: upstream.url } } },
  });
}

async function upload(h: TestApp, name: string, text: string): Promise<string> {
  const form = new FormData();
  form.set('file', new Blob([text], { type: 'text/plain' }), name);
  form.set('agent_id', 'support');
  const res = await h.request('/v1/knowledge/upload', { method: 'POST', headers: { authorization: `Bearer ${API_KEY}` }, body: form });
  expect(res.status).toBeLessThan(300);
  return ((await res.json()) as { id: string }).id;
}

function told(client: Client) {
  const seen: string[] = [];
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void seen.push('resources/list_changed'));
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void seen.push(`updated ${n.params.uri}`));
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void seen.push('tools/list_changed'));
  return seen;
}

describe('/mcp notifications', { timeout: 60_000 }, () => {
  it('a document added or removed: list_changed to keys of its agent, updated to a subscriber of it; none to another key', async () => {
    const h = await herald();
    const first = await upload(h, 'refunds.txt', 'Refunds take five business days.');
    const client = await connectClient(h, { key: API_KEY });
    const other = await connectClient(h, { key: OTHER_KEY });
    const seen = told(client);
    const otherSeen = told(other);
    const { resources } = await client.listResources();
    const uri = resources[0]!.uri;
    await client.subscribeResource({ uri });

    await upload(h, 'shipping.txt', 'Shipping takes two days.');
    await eventually(() => seen.includes('resources/list_changed'));
    expect((await client.listResources()).resources.map((r) => r.name).sort()).toEqual(['refunds.txt', 'shipping.txt']);

    seen.length = 0;
    expect((await h.request(`/v1/knowledge/${first}`, { method: 'DELETE', headers: { authorization: `Bearer ${API_KEY}` } })).status).toBe(200);
    await eventually(() => seen.includes(`updated ${uri}`));
    expect(seen).toContain('resources/list_changed');
    expect(otherSeen.filter((s) => s.startsWith('resources') || s.startsWith('updated'))).toEqual([]);
  });

  it("an upstream server's tool list changed: tools/list_changed, and the new tool is listed", async () => {
    const h = await herald();
    const client = await connectClient(h, { key: API_KEY });
    const seen = told(client);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('things__lookup');
    upstream!.sessions.at(-1)!.registerTool('count', { description: 'Counts things', inputSchema: {}, annotations: { readOnlyHint: true } }, async () => ({ content: [{ type: 'text', text: '3' }] }));
    await eventually(() => seen.includes('tools/list_changed'));
    await eventually(async () => (await client.listTools()).tools.some((t) => t.name === 'things__count'));
  });
});
