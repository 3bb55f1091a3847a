import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { startServers, type ServersUnderTest } from './mcp-fixture.js';
import { startMcpHttpServer, type McpHttpServer } from './mcp-http-server.js';

/**
 * Results as the server gives them (issue 81, item 3): structured content, checked against the
 * tool's outputSchema (by the SDK's client, from the schema herald listed), reaches the model
 * beside the text; a result that does not match its schema is an error the model is told of.
 */
let under: ServersUnderTest | undefined;
let remote: McpHttpServer | undefined;
afterEach(async () => {
  await under?.servers.stop();
  await remote?.close();
  under = remote = undefined;
});

const call = (tool: string) => under!.servers.call(under!.servers.tools().find((t) => t.tool === tool)!, {}, { timeoutMs: 10_000 });

describe('structured results', () => {
  it('passes structured content on beside the text, once', async () => {
    remote = await startMcpHttpServer((mcp) => {
      const outputSchema = { temperature: z.number(), unit: z.enum(['C', 'F']) };
      mcp.registerTool('weather', { description: 'text and structure', outputSchema }, async () => ({
        content: [{ type: 'text', text: 'Mild today.' }],
        structuredContent: { temperature: 21, unit: 'C' },
      }));
      // the spec's advice: the structure repeated as a text item for older clients; the model reads it once
      mcp.registerTool('repeated', { description: 'structure repeated as text', outputSchema }, async () => ({
        content: [{ type: 'text', text: JSON.stringify({ temperature: 21, unit: 'C' }) }],
        structuredContent: { temperature: 21, unit: 'C' },
      }));
    });
    under = startServers({ mcpServers: { wx: { url: remote.url } } });
    await under.until('wx', 'ready');
    const structured = [{ kind: 'structured', json: '{"temperature":21,"unit":"C"}' }];
    expect(await call('weather')).toEqual({ text: 'Mild today.\n{"temperature":21,"unit":"C"}', isError: false, parts: structured });
    expect(await call('repeated')).toEqual({ text: '{"temperature":21,"unit":"C"}', isError: false, parts: structured });
  });

  it('refuses structured content that does not match the outputSchema the server listed', async () => {
    // raw handlers: the SDK's McpServer would check its own output before sending it, a lying server does not
    remote = await startMcpHttpServer((mcp) => {
      mcp.server.registerCapabilities({ tools: {} });
      mcp.server.setRequestHandler(ListToolsRequestSchema, async () => ({
        tools: [{ name: 'wrong', inputSchema: { type: 'object' as const }, outputSchema: { type: 'object' as const, properties: { temperature: { type: 'number' } }, required: ['temperature'] } }],
      }));
      mcp.server.setRequestHandler(CallToolRequestSchema, async () => ({ content: [], structuredContent: { temperature: 'warm' } }));
    });
    under = startServers({ mcpServers: { wx: { url: remote.url } } });
    await under.until('wx', 'ready');
    const result = await call('wrong');
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/^the server wx answered with an error: .*Structured content does not match the tool's output schema/);
  });
});
