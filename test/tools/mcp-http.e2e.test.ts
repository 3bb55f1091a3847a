import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ToolSpec } from '../../src/tools/tool-spec.js';
import { eventually } from '../helpers/start-herald.js';
import { startServers, type ServersUnderTest } from './mcp-fixture.js';
import { startMcpHttpServer, type McpHttpServer } from './mcp-http-server.js';

let under: ServersUnderTest | undefined;
let remote: McpHttpServer | undefined;
afterEach(async () => {
  await under?.servers.stop();
  await remote?.close();
  under = remote = undefined;
});

const TOKEN = 'mcp-test-token-0123456789';
const spec = (name: string) => under!.servers.tools().find((t) => t.name === name)!;
const call = (name: string, args: Record<string, unknown> = {}, timeoutMs = 10_000) => under!.servers.call(spec(name), args, { timeoutMs });
const health = (server: string) => under!.servers.health().find((h) => h.server === server)!;

describe('an MCP server over Streamable HTTP (the SDK server, in the test)', () => {
  it('connects with the configured headers, lists and calls its tools, and reads them again on list_changed', async () => {
    remote = await startMcpHttpServer((mcp) => {
      mcp.registerTool('lookup', { description: 'Looks a customer up', inputSchema: { id: z.string() }, annotations: { readOnlyHint: true } }, async ({ id }) => ({
        content: [{ type: 'text', text: `customer ${id}` }],
      }));
      mcp.registerTool('delete', { description: 'Deletes a customer', inputSchema: { id: z.string() }, annotations: { readOnlyHint: true, destructiveHint: true } }, async () => ({
        content: [{ type: 'text', text: 'deleted' }],
      }));
      mcp.registerTool('weather', { description: 'Structured only', outputSchema: { temperature: z.number() } }, async () => ({
        content: [],
        structuredContent: { temperature: 21 },
      }));
    }, { token: TOKEN });
    under = startServers({ mcpServers: { crm: { url: remote.url, headers: { Authorization: `Bearer ${TOKEN}` } } } });
    await under.until('crm', 'ready');
    expect(remote.refused).toBe(0);
    expect(spec('crm__lookup')).toMatchObject({ server: 'crm', tool: 'lookup', description: 'Looks a customer up', readOnly: true });
    // destructiveHint wins over readOnlyHint
    expect(spec('crm__delete').readOnly).toBe(false);
    expect(await call('crm__lookup', { id: '42' })).toEqual({ text: 'customer 42', isError: false });
    // no text item: the structured content, as JSON (and as a part of its own, which the run page shows)
    expect(await call('crm__weather')).toEqual({ text: '{"temperature":21}', isError: false, parts: [{ kind: 'structured', json: '{"temperature":21}' }] });
    expect(health('crm')).toMatchObject({ transport: 'http', state: 'ready', tools: 3 });

    // a tool added while connected: the SDK server sends notifications/tools/list_changed
    remote.sessions.at(-1)!.registerTool('added', { description: 'Added later' }, async () => ({ content: [{ type: 'text', text: 'new' }] }));
    await eventually(() => under!.servers.tools().some((t) => t.name === 'crm__added'));
    expect(await call('crm__added')).toEqual({ text: 'new', isError: false });
    // header values are never logged
    expect(under.logs()).not.toContain(TOKEN);
  });

  it("goes on with a call whose stream the server closed before its answer: asked again with Last-Event-ID, the answer arrives", async () => {
    remote = await startMcpHttpServer((mcp) => {
      mcp.registerTool('slow', { description: 'Answers on a stream it closed', inputSchema: { id: z.string() } }, async ({ id }, extra) => {
        // the server lets go of the call's stream after its priming event (the SDK's SSE polling); the answer is kept for the client
        extra.closeSSEStream?.();
        await new Promise((resolve) => setImmediate(resolve));
        return { content: [{ type: 'text', text: `done ${id}` }] };
      });
    }, { resumable: true });
    under = startServers({ mcpServers: { crm: { url: remote.url } } });
    await under.until('crm', 'ready');
    const result = await call('crm__slow', { id: '7' });
    expect(result).toMatchObject({ text: 'done 7' });
    expect(result.isError).toBeFalsy();
  });

  it('marks a server that refuses the headers failed, with the reason, and never logs them', async () => {
    remote = await startMcpHttpServer(() => undefined, { token: TOKEN });
    under = startServers({ mcpServers: { crm: { url: remote.url, headers: { Authorization: 'Bearer wrong-token-abcdef' } } } });
    await under.until('crm', 'failed');
    expect(remote.refused).toBeGreaterThan(0);
    expect(health('crm').lastError).toMatch(/401/);
    expect(under.logs()).not.toContain('wrong-token-abcdef');
  });

  it('notices a server gone (it is pinged), marks it failed, and connects again once it is back', async () => {
    const setup = (mcp: Parameters<Parameters<typeof startMcpHttpServer>[0]>[0]) =>
      mcp.registerTool('lookup', { description: 'Looks up', inputSchema: { id: z.string() } }, async ({ id }) => ({ content: [{ type: 'text', text: `found ${id}` }] }));
    remote = await startMcpHttpServer(setup);
    const port = Number(new URL(remote.url).port);
    under = startServers({ mcpServers: { crm: { url: remote.url } } }, undefined, { checkEveryMs: 50 });
    await under.until('crm', 'ready');
    await remote.close();
    await under.until('crm', 'failed');
    expect(health('crm').lastError).toMatch(/ECONNREFUSED/);
    expect((await call('crm__lookup', { id: '1' })).text).toMatch(/^the server crm is not available \(failed: .*ECONNREFUSED/);

    remote = await startMcpHttpServer(setup, { port });
    await under.until('crm', 'ready');
    expect(health('crm').restarts).toBeGreaterThan(0);
    expect(await call('crm__lookup', { id: '2' })).toEqual({ text: 'found 2', isError: false });
  });

  it('gives a time-out result for a tool that never answers', async () => {
    remote = await startMcpHttpServer((mcp) => {
      mcp.registerTool('hang', { description: 'Never answers' }, () => new Promise(() => undefined));
    });
    under = startServers({ mcpServers: { slow: { url: remote.url, timeoutSeconds: 0.2 } } });
    await under.until('slow', 'ready');
    expect(await call('slow__hang')).toEqual({ text: 'the server slow did not answer within 0.2s', isError: true, timedOut: true });
    expect(health('slow').state).toBe('ready');
  });

  it('cuts a huge result to tools.maxResultChars, and refuses an answer past the message limit without holding it', async () => {
    remote = await startMcpHttpServer((mcp) => {
      mcp.registerTool('huge', { description: 'A long text' }, async () => ({ content: [{ type: 'text', text: 'y'.repeat(100_000) }] }));
      mcp.registerTool('flood', { description: 'Past 10 MB' }, async () => ({ content: [{ type: 'text', text: 'z'.repeat(11 * 1024 * 1024) }] }));
    });
    under = startServers({ mcpServers: { big: { url: remote.url } } });
    await under.until('big', 'ready');
    const huge = await call('big__huge');
    expect(huge.isError).toBe(false);
    expect(huge.text).toBe(`${'y'.repeat(16_000)}\n[result cut at 16000 of 100000 characters]`);
    const flood = await call('big__flood');
    expect(flood.isError).toBe(true);
    expect(flood.text).toMatch(/^the call to the server big failed: the server's answer is larger than .*10 MB/);
  });

  it('takes at most tools.maxToolsPerServer tools from a server listing 5000, and says so in its health', async () => {
    remote = await startMcpHttpServer((mcp) => {
      for (let i = 0; i < 5000; i++) mcp.registerTool(`tool_${i}`, { description: `tool ${i}` }, async () => ({ content: [{ type: 'text', text: String(i) }] }));
    });
    under = startServers({ maxToolsPerServer: 50, mcpServers: { many: { url: remote.url } } });
    await under.until('many', 'ready');
    expect(under.servers.tools()).toHaveLength(50);
    expect(health('many')).toMatchObject({ tools: 50, listed: 5000 });
    expect(await call('many__tool_49')).toEqual({ text: '49', isError: false });
  });

  it('reads every page of a paginated list, stops paging at the cap, and survives a wrong answer', async () => {
    const page = (cursor: string | undefined) => Number(cursor ?? 0);
    remote = await startMcpHttpServer((mcp) => {
      // the low-level handlers, as a server that pages its list writes them (MCP: pagination, nextCursor)
      mcp.server.registerCapabilities({ tools: { listChanged: true } });
      mcp.server.setRequestHandler(ListToolsRequestSchema, async (request) => {
        const n = page(request.params?.cursor);
        // an endless list: every page names one more tool and a next cursor
        return { tools: [{ name: `paged.${n}`, description: `page ${n}`, inputSchema: { type: 'object' as const } }], nextCursor: String(n + 1) };
      });
      mcp.server.setRequestHandler(CallToolRequestSchema, async () => ({ content: 'not a list of content items' }) as never);
    });
    under = startServers({ maxToolsPerServer: 5, mcpServers: { paged: { url: remote.url } } });
    await under.until('paged', 'ready');
    // `.` is not allowed in a function name: made `_`
    expect(under.servers.tools().map((t: ToolSpec) => t.name)).toEqual(['paged__paged_0', 'paged__paged_1', 'paged__paged_2', 'paged__paged_3', 'paged__paged_4']);
    expect(health('paged').listed).toBe(6);
    // the SDK's server checks its own answer, and says what was wrong with it
    const garbage = await call('paged__paged_0');
    expect(garbage.isError).toBe(true);
    expect(garbage.text).toMatch(/^the server paged answered with an error: .*Invalid tools\/call result/);
  });
});
