import OpenAI from 'openai';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, eventually, GATEWAY_TOKEN } from '../../helpers/start-herald.js';
import { startMcpHttpServer, type McpHttpServer } from '../../tools/mcp-http-server.js';
import { testApp, type TestApp } from '../app-fixture.js';
import { startFakeUpstream } from '../v1/fake-openai-upstream.js';

/**
 * The stored Responses API responses on the admin API: a response whose model called a
 * server-side MCP tool (a real Streamable HTTP MCP server made with the SDK, reached through the
 * gateway's configured connection) shows the call where the model asked for it, its arguments
 * masked, and the tool's result. The model is the fake OpenAI-compatible upstream that calls the
 * tools it is offered (fake-tool-model.ts).
 */
let herald: TestApp;
let upstream: Awaited<ReturnType<typeof startFakeUpstream>>;
let mcp: McpHttpServer;
let client: OpenAI;
const received: unknown[] = [];

beforeAll(async () => {
  mcp = await startMcpHttpServer((server) => {
    server.registerTool('lookup', { description: 'Reads the notes on a topic', inputSchema: { topic: z.string(), api_key: z.string() }, annotations: { readOnlyHint: true } }, async (args) => {
      received.push(args);
      return { content: [{ type: 'text', text: `notes on ${args.topic}` }] };
    });
  });
  upstream = await startFakeUpstream();
  upstream.toolModel({ argumentsFor: () => ({ topic: 'customers', api_key: 'sk-live-not-for-eyes' }) });
  herald = await testApp({
    models: { providers: { up: { api: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'upstream-secret-key' } } },
    agents: {
      list: [
        { id: 'clerk', model: 'up/gpt-test', tools: { servers: ['crm'], allow: ['crm__lookup'] } },
        { id: 'plain', model: 'up/gpt-test' },
      ],
    },
    tools: { mcpServers: { crm: { url: mcp.url } } },
  });
  client = new OpenAI({ baseURL: `${herald.origin}/v1`, fetch: herald.fetch, apiKey: API_KEY, maxRetries: 0 });
  await eventually(() => herald.gateway.mcp.tools().some((t) => t.name === 'crm__lookup'));
}, 60_000);
afterAll(async () => {
  await herald?.stop();
  await upstream?.close();
  await mcp?.close();
});

const admin = async (path: string) => {
  const res = await herald.request(`/admin${path}`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
  return { status: res.status, body: (await res.json()) as any };
};

describe('GET /admin/responses', { timeout: 60_000 }, () => {
  it('lists the stored responses newest first and shows one with its MCP call, masked, and the result', async () => {
    const called = await client.responses.create({ model: 'clerk', input: 'Notes on customers?' });
    expect(called.status).toBe('completed');
    expect(received).toEqual([{ topic: 'customers', api_key: 'sk-live-not-for-eyes' }]);
    const later = await client.responses.create({ model: 'plain', input: 'Hello there' });

    const list = await admin('/responses');
    expect(list.status).toBe(200);
    // newest first (two made in one millisecond tie: either order then)
    expect(list.body.data.map((r: any) => r.id).sort()).toEqual([later.id, called.id].sort());
    expect(Date.parse(list.body.data[0].createdAt)).toBeGreaterThanOrEqual(Date.parse(list.body.data[1].createdAt));
    const row = (id: string) => list.body.data.find((r: any) => r.id === id);
    expect(row(called.id)).toMatchObject({ agentId: 'clerk', previousResponseId: null, toolCalls: 1, paused: false, output: called.output_text.slice(0, 200) });
    expect(row(called.id).usage.total_tokens).toBeGreaterThan(0);
    expect(Math.floor(Date.parse(row(called.id).createdAt) / 1000)).toBe(called.created_at);
    expect(row(later.id)).toMatchObject({ agentId: 'plain', toolCalls: 0 });
    expect((await admin('/responses?agent=clerk')).body.data.map((r: any) => r.id)).toEqual([called.id]);
    expect((await admin('/responses?limit=1')).body.data.map((r: any) => r.id)).toEqual([list.body.data[0].id]);

    const detail = await admin(`/responses/${called.id}`);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ id: called.id, agentId: 'clerk', output: called.output_text, toolCalls: 1 });
    const transcript = detail.body.transcript;
    expect(transcript.map((m: any) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(transcript[0].content).toBe('Notes on customers?');
    // the call where the model asked for it, the secret-looking argument masked
    const [call] = transcript[1].toolCalls;
    expect(call).toEqual({ id: expect.any(String), name: 'crm__lookup', arguments: { topic: 'customers', api_key: '••••' } });
    expect(JSON.stringify(detail.body)).not.toContain('sk-live-not-for-eyes');
    // its result, naming the call and its tool
    expect(transcript[2]).toMatchObject({ toolCallId: call.id, tool: 'crm__lookup' });
    expect(transcript[2].content).toContain('notes on customers');
    expect(transcript[3].content).toBe(called.output_text);
  });

  it('answers 404 with a code for an unknown response, 400 naming a bad limit', async () => {
    for (const id of ['resp_0123456789abcdef01234567', 'nope']) {
      const missing = await admin(`/responses/${id}`);
      expect(missing.status).toBe(404);
      expect(missing.body).toMatchObject({ ok: false, code: 'HERALD_RESPONSE_NOT_FOUND' });
    }
    const bad = await admin('/responses?limit=201');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('limit');
  });
});
