import http from 'node:http';
import net from 'node:net';
import OpenAI from 'openai';
import { z } from 'zod';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { API_KEY, eventually, GATEWAY_TOKEN } from '../../helpers/start-herald.js';
import { startMcpHttpServer, type McpHttpServer } from '../../tools/mcp-http-server.js';
import { testApp, type TestApp } from '../app-fixture.js';
import { startFakeUpstream } from './fake-openai-upstream.js';

/**
 * OpenAI's remote MCP tool on POST /v1/responses (https://platform.openai.com/docs/guides/tools-remote-mcp),
 * with the official client: a Streamable HTTP MCP server made with the SDK in the test, allowlisted
 * by tools.remoteAllowlist, and a fake OpenAI-compatible model that calls the tools it is offered
 * (fake-tool-model.ts). herald lists the server, makes the model's calls, asks the client's
 * approval, and answers with mcp_list_tools, mcp_call and mcp_approval_request items.
 */
let herald: TestApp;
let upstream: Awaited<ReturnType<typeof startFakeUpstream>>;
let mcp: McpHttpServer;
let client: OpenAI;
/** an allowlisted server (under /mcp) that redirects: the paths it was asked for */
let redirector: http.Server;
let redirectorUrl: string;
const redirected: string[] = [];
/** the calls the MCP server received, as it received them */
const received: { tool: string; args: unknown }[] = [];

const TOKEN = 'mcp-bearer-token-0123456789';

beforeAll(async () => {
  mcp = await startMcpHttpServer(
    (server) => {
      server.registerTool('lookup', { description: 'Reads the notes on a topic', inputSchema: { topic: z.string() }, annotations: { readOnlyHint: true } }, async ({ topic }) => {
        received.push({ tool: 'lookup', args: { topic } });
        return { content: [{ type: 'text', text: `notes on ${topic}` }] };
      });
      server.registerTool('add_label', { description: 'Labels an issue', inputSchema: { issue: z.number().int(), label: z.string() } }, async ({ issue, label }) => {
        received.push({ tool: 'add_label', args: { issue, label } });
        return { content: [{ type: 'text', text: `labelled #${issue} ${label}` }] };
      });
    },
    { token: TOKEN },
  );
  upstream = await startFakeUpstream();
  redirector = http.createServer((req, res) => {
    redirected.push(req.url ?? '');
    // within its origin but outside the allowlisted prefix, or to the MCP server (another origin)
    const to = req.url === '/mcp/inside' ? `${redirectorUrl}/admin` : mcp.url;
    res.writeHead(307, { location: to }).end();
  });
  await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
  redirectorUrl = `http://127.0.0.1:${(redirector.address() as net.AddressInfo).port}`;
  herald = await testApp({
    models: { providers: { up: { api: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'upstream-secret-key' } } },
    agents: {
      list: [
        { id: 'analyst', instructions: 'You are Analyst.', model: 'up/gpt-test' },
        // granted herald's own search by config: it runs in every turn of this agent
        { id: 'keeper', model: 'up/gpt-test', tools: { servers: ['herald'], allow: ['herald__search_knowledge'] } },
        // granted the configured server crm (the same MCP server, connected by the gateway)
        { id: 'clerk', model: 'up/gpt-test', tools: { servers: ['crm'], allow: ['crm__lookup'] } },
      ],
    },
    tools: { remoteAllowlist: [mcp.url, `${redirectorUrl}/mcp`], mcpServers: { crm: { url: mcp.url, headers: { Authorization: `Bearer ${TOKEN}` } } } },
  });
  client = new OpenAI({ baseURL: `${herald.origin}/v1`, fetch: herald.fetch, apiKey: API_KEY, maxRetries: 0 });
  const form = new FormData();
  form.append('agent_id', 'keeper');
  form.append('file', new Blob(['The Oslo office is on Karl Johans gate.']), 'office.txt');
  expect((await herald.request('/v1/knowledge/upload', { method: 'POST', headers: { authorization: `Bearer ${API_KEY}` }, body: form })).status).toBe(201);
  await eventually(() => herald.gateway.mcp.tools().some((t) => t.name === 'crm__lookup'));
});
afterAll(async () => {
  await herald?.stop();
  await upstream?.close();
  await mcp?.close();
  redirector?.closeAllConnections();
  await new Promise((resolve) => redirector?.close(resolve));
});
beforeEach(() => {
  received.length = 0;
  upstream.toolModel({ argumentsFor: (name) => ARGUMENTS[name] ?? {} });
});

/** what the fake model calls each tool with */
const ARGUMENTS: Record<string, unknown> = {
  docs__add_label: { issue: 7, label: 'bug' },
  docs__lookup: { topic: 'streaming' },
  crm__lookup: { topic: 'customers' },
  herald__search_knowledge: { query: 'Oslo office' },
  get_weather: { city: 'Oslo' },
};
const weather: OpenAI.Responses.FunctionTool = { type: 'function', name: 'get_weather', description: 'The weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false };

const docs = (fields: Partial<OpenAI.Responses.Tool.Mcp> = {}): OpenAI.Responses.Tool.Mcp => ({
  type: 'mcp',
  server_label: 'docs',
  server_url: mcp.url,
  headers: { Authorization: `Bearer ${TOKEN}` },
  ...fields,
});

type Item = OpenAI.Responses.ResponseOutputItem;
const ofType = <T extends Item['type']>(items: Item[], type: T) => items.filter((i): i is Extract<Item, { type: T }> => i.type === type);

describe('the remote MCP tool on /v1/responses', () => {
  it('lists the server, makes the call and answers: mcp_list_tools, mcp_call, then the message; the next response does not list again', async () => {
    const response = await client.responses.create({ model: 'analyst', input: 'What do the notes say on streaming?', tools: [docs({ allowed_tools: ['lookup'], require_approval: 'never' })] });
    expect(response.output.map((i) => i.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
    const [listing] = ofType(response.output, 'mcp_list_tools');
    expect(listing).toMatchObject({ server_label: 'docs', error: null });
    expect(listing!.tools).toEqual([{ name: 'lookup', description: 'Reads the notes on a topic', input_schema: expect.objectContaining({ type: 'object' }), annotations: { readOnlyHint: true } }]);
    const [call] = ofType(response.output, 'mcp_call');
    expect(call).toMatchObject({ server_label: 'docs', name: 'lookup', arguments: '{"topic":"streaming"}', output: 'notes on streaming', error: null, status: 'completed', approval_request_id: null });
    expect(call!.id).toMatch(/^mcp_/);
    expect(response.output_text).toBe('The tools said: notes on streaming.');
    expect(received).toEqual([{ tool: 'lookup', args: { topic: 'streaming' } }]);

    // the model was offered the server's allowed tool as a function, named <server_label>__<tool>
    const asked = upstream.requests.at(-2)!.json;
    expect(asked.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(['docs__lookup']);
    // on the record, owned by the response
    const recorded = await herald.gateway.store.toolCalls.ofOwner('response', response.id);
    expect(recorded).toMatchObject([{ server: 'docs', tool: 'lookup', status: 'succeeded', result: 'notes on streaming', keyName: 'test', agentId: 'analyst' }]);

    // the headers went to the server, and nowhere else: not echoed, stored or logged
    expect(mcp.refused).toBe(0);
    expect(response.tools).toEqual([{ type: 'mcp', server_label: 'docs', server_url: mcp.url, allowed_tools: ['lookup'], require_approval: 'never' }]);
    expect(JSON.stringify(await herald.gateway.store.state.get(`response:${response.id}`))).not.toContain(TOKEN);
    expect(herald.rawLogs()).not.toContain(TOKEN);
    const stored = await client.responses.retrieve(response.id);
    expect(stored.output).toEqual(response.output);
    // a request's remote servers are counted as one in the metrics: no client can grow their labels
    const metrics = await (await herald.request('/metrics', { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).text();
    expect(metrics).toMatch(/herald_tool_calls_total\{[^}]*server="remote"[^}]*tool="\*"[^}]*\} 1/);
    expect(metrics).not.toContain('server="docs"');

    // the conversation goes on: the tools are listed once in it, and the model sees the earlier call and result
    const next = await client.responses.create({ model: 'analyst', previous_response_id: response.id, input: 'And again?', tools: [docs({ allowed_tools: ['lookup'], require_approval: 'never' })] });
    expect(next.output.map((i) => i.type)).toEqual(['mcp_call', 'message']);
    const history = upstream.requests.at(-2)!.json.messages.map((m: { role: string }) => m.role);
    expect(history).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user']);
  });

  it('require_approval (OpenAI\'s default, always): an mcp_approval_request; approved by mcp_approval_response, the call reaches the server', async () => {
    const tools = [docs({ allowed_tools: { tool_names: ['add_label'] } })];
    const first = await client.responses.create({ model: 'analyst', input: 'Label issue 7 as a bug', tools });
    expect(first.status).toBe('completed');
    expect(first.output.map((i) => i.type)).toEqual(['mcp_list_tools', 'mcp_approval_request']);
    const [request] = ofType(first.output, 'mcp_approval_request');
    expect(request).toMatchObject({ server_label: 'docs', name: 'add_label', arguments: '{"issue":7,"label":"bug"}' });
    expect(request!.id).toMatch(/^mcpr_/);
    expect(received).toEqual([]);

    const second = await client.responses.create({
      model: 'analyst',
      previous_response_id: first.id,
      input: [{ type: 'mcp_approval_response', approval_request_id: request!.id, approve: true }],
      tools,
    });
    expect(received).toEqual([{ tool: 'add_label', args: { issue: 7, label: 'bug' } }]);
    expect(second.output.map((i) => i.type)).toEqual(['mcp_call', 'message']);
    expect(ofType(second.output, 'mcp_call')[0]).toMatchObject({ name: 'add_label', output: 'labelled #7 bug', status: 'completed', approval_request_id: request!.id });
    expect(second.output_text).toBe('The tools said: labelled #7 bug.');
    // each response counts its own model calls: the fake's usage is 25 tokens a call
    expect([first.usage?.total_tokens, second.usage?.total_tokens]).toEqual([25, 25]);
    // who approved, on the call's record: the API key
    const [recorded] = await herald.gateway.store.toolCalls.ofOwner('response', first.id);
    expect(recorded).toMatchObject({ status: 'succeeded', approvalRequired: true, approval: { decision: 'approved', by: 'test' } });

    // a pause is continued once: answering the first response again is a conflict, and runs nothing twice
    await expect(
      client.responses.create({ model: 'analyst', previous_response_id: first.id, input: [{ type: 'mcp_approval_response', approval_request_id: request!.id, approve: true }], tools }),
    ).rejects.toMatchObject({ status: 409, param: 'input[0].approval_request_id' });
    expect(received).toHaveLength(1);
    // and the answered response has no approval request waiting
    await expect(
      client.responses.create({ model: 'analyst', previous_response_id: second.id, input: [{ type: 'mcp_approval_response', approval_request_id: request!.id, approve: true }], tools }),
    ).rejects.toMatchObject({ status: 400, param: 'input[0].approval_request_id' });
  });

  it('denied: nothing reaches the server, and the model is told who refused and why', async () => {
    const tools = [docs({ allowed_tools: ['add_label'], require_approval: { always: { tool_names: ['add_label'] } } })];
    const first = await client.responses.create({ model: 'analyst', input: 'Label issue 7 as a bug', tools });
    const [request] = ofType(first.output, 'mcp_approval_request');
    const second = await client.responses.create({
      model: 'analyst',
      previous_response_id: first.id,
      input: [{ type: 'mcp_approval_response', approval_request_id: request!.id, approve: false, reason: 'not a bug' }],
      tools,
    });
    expect(received).toEqual([]);
    expect(second.output.map((i) => i.type)).toEqual(['message']);
    const told = upstream.requests.at(-1)!.json.messages.at(-1);
    expect(told).toMatchObject({ role: 'tool', content: expect.stringContaining('(test) refused this call: not a bug') });
    expect(second.output_text).toContain('refused this call');
  });

  it('streams the MCP items with their typed events', async () => {
    const stream = client.responses.stream({ model: 'analyst', input: 'Notes on streaming?', tools: [docs({ allowed_tools: ['lookup'], require_approval: 'never' })] });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const final = await stream.finalResponse();
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.mcp_list_tools.in_progress',
      'response.mcp_list_tools.completed',
      'response.output_item.done',
      'response.output_item.added',
      'response.mcp_call_arguments.delta',
      'response.mcp_call_arguments.done',
      'response.mcp_call.in_progress',
      'response.mcp_call.completed',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const callDone = events[11] as OpenAI.Responses.ResponseOutputItemDoneEvent;
    expect(callDone).toMatchObject({ output_index: 1, item: { type: 'mcp_call', name: 'lookup', output: 'notes on streaming', status: 'completed' } });
    expect(final.output.map((i) => i.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
    expect(final.output_text).toBe('The tools said: notes on streaming.');
    expect(received).toEqual([{ tool: 'lookup', args: { topic: 'streaming' } }]);
  });

  it('refuses a server_url outside tools.remoteAllowlist with 400 naming it, and connects nowhere', async () => {
    const connections: net.Socket[] = [];
    const trap = net.createServer((socket) => {
      connections.push(socket);
      socket.destroy();
    });
    await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
    const { port } = trap.address() as net.AddressInfo;
    try {
      const urls = [
        `http://127.0.0.1:${port}/mcp`,
        // the allowlisted server's own prefix, but another path, credentials, an encoded slash
        `${mcp.url}x`,
        mcp.url.replace('http://', `http://user:pw@`),
        `${mcp.url}/..%2F..%2Fadmin`,
      ];
      for (const server_url of urls) {
        const error = await client.responses
          .create({ model: 'analyst', input: 'hi', tools: [{ type: 'function', name: 'noop', parameters: {}, strict: false }, { type: 'mcp', server_label: 'evil', server_url, require_approval: 'never' }] })
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(OpenAI.BadRequestError);
        expect(error).toMatchObject({ status: 400, param: 'tools[1].server_url' });
      }
    } finally {
      await new Promise((resolve) => trap.close(resolve));
    }
    expect(connections).toEqual([]);
  });

  it('follows no redirect out of the allowlist: a server under it cannot send herald elsewhere', async () => {
    const sessions = mcp.sessions.length;
    for (const path of ['/mcp/inside', '/mcp/outside']) {
      const response = await client.responses.create({ model: 'analyst', input: 'hi', tools: [{ type: 'mcp', server_label: 'hop', server_url: `${redirectorUrl}${path}`, require_approval: 'never' }] });
      expect(ofType(response.output, 'mcp_list_tools')[0]).toMatchObject({ server_label: 'hop', tools: [], error: expect.stringContaining('could not be listed') });
    }
    // asked for the allowlisted paths only: never /admin, and the MCP server (another origin) was not reached through it
    expect(new Set(redirected)).toEqual(new Set(['/mcp/inside', '/mcp/outside']));
    expect(mcp.sessions.length).toBe(sessions);
  });

  it('refuses a server_label that names no configured server (400), and a continuation that answers nothing waiting', async () => {
    await expect(client.responses.create({ model: 'analyst', input: 'hi', tools: [{ type: 'mcp', server_label: 'github' }] })).rejects.toMatchObject({
      status: 400,
      param: 'tools[0].server_label',
    });
    await expect(
      client.responses.create({ model: 'analyst', input: 'hi', tools: [docs(), docs({ server_url: mcp.url })] }),
    ).rejects.toMatchObject({ status: 400, param: 'tools[1].server_label' });
    const plain = await client.responses.create({ model: 'analyst', input: 'hi' });
    await expect(
      client.responses.create({ model: 'analyst', previous_response_id: plain.id, input: [{ type: 'mcp_approval_response', approval_request_id: 'mcpr_00', approve: true }] }),
    ).rejects.toMatchObject({ status: 400, param: 'input[0].approval_request_id' });
  });

  it('a server that cannot be listed: an mcp_list_tools item with its error, and the model answers without its tools', async () => {
    const response = await client.responses.create({ model: 'analyst', input: 'hi', tools: [docs({ headers: { Authorization: 'Bearer wrong-token' }, require_approval: 'never' })] });
    expect(response.output.map((i) => i.type)).toEqual(['mcp_list_tools', 'message']);
    expect(ofType(response.output, 'mcp_list_tools')[0]).toMatchObject({ server_label: 'docs', tools: [], error: expect.stringMatching(/docs could not be listed.*401/) });
    expect(response.output_text).toBe('upstream answer');
  });
});

describe("the agent's own tools (granted by config) on /v1/responses", () => {
  it('run as mcp_call items named by their server, beside the client\'s function tools', async () => {
    const response = await client.responses.create({ model: 'keeper', input: 'Where is the Oslo office?' });
    expect(response.output.map((i) => i.type)).toEqual(['mcp_call', 'message']);
    expect(ofType(response.output, 'mcp_call')[0]).toMatchObject({
      server_label: 'herald',
      name: 'search_knowledge',
      arguments: '{"query":"Oslo office"}',
      output: expect.stringContaining('Karl Johans gate'),
      status: 'completed',
    });
    expect(response.output_text).toContain('Karl Johans gate');
    expect(await herald.gateway.store.toolCalls.ofOwner('response', response.id)).toMatchObject([{ server: 'herald', tool: 'search_knowledge', status: 'succeeded' }]);

    // the model calls the client's tool and herald's at once: herald runs its own, the client's ends the turn
    const calling = await client.responses.create({ model: 'keeper', input: 'Weather at the Oslo office?', tools: [weather] });
    expect(calling.output.map((i) => i.type)).toEqual(['mcp_call', 'function_call']);
    const call = ofType(calling.output, 'function_call')[0]!;
    const answer = await client.responses.create({
      model: 'keeper',
      previous_response_id: calling.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: '12C' }],
      tools: [weather],
    });
    expect(answer.output_text).toContain('12C');
  });

  it('streams their items', async () => {
    const stream = client.responses.stream({ model: 'keeper', input: 'Where is the Oslo office?' });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types.slice(2, 8)).toEqual([
      'response.output_item.added',
      'response.mcp_call_arguments.delta',
      'response.mcp_call_arguments.done',
      'response.mcp_call.in_progress',
      'response.mcp_call.completed',
      'response.output_item.done',
    ]);
    expect((await stream.finalResponse()).output.map((i) => i.type)).toEqual(['mcp_call', 'message']);
  });

  it('named by server_label, they are the request\'s: listed, and held for its approval; an agent not granted the server is refused', async () => {
    const tools: OpenAI.Responses.Tool[] = [{ type: 'mcp', server_label: 'herald' }];
    const first = await client.responses.create({ model: 'keeper', input: 'Where is the Oslo office?', tools });
    expect(first.output.map((i) => i.type)).toEqual(['mcp_list_tools', 'mcp_approval_request']);
    expect(ofType(first.output, 'mcp_list_tools')[0]!.tools.map((t) => t.name)).toEqual(['search_knowledge']);
    const [request] = ofType(first.output, 'mcp_approval_request');
    const second = await client.responses.create({
      model: 'keeper',
      previous_response_id: first.id,
      input: [{ type: 'mcp_approval_response', approval_request_id: request!.id, approve: true }],
      tools,
    });
    expect(second.output.map((i) => i.type)).toEqual(['mcp_call', 'message']);
    expect(second.output_text).toContain('Karl Johans gate');

    await expect(client.responses.create({ model: 'analyst', input: 'hi', tools })).rejects.toMatchObject({ status: 400, param: 'tools[0].server_label' });
  });

  it('a configured MCP server named by server_label: its tools listed and called through the gateway\'s connection', async () => {
    const response = await client.responses.create({ model: 'clerk', input: 'Notes on customers?', tools: [{ type: 'mcp', server_label: 'crm', require_approval: 'never' }] });
    expect(response.output.map((i) => i.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
    expect(ofType(response.output, 'mcp_list_tools')[0]!.tools.map((t) => t.name)).toEqual(['lookup']);
    expect(ofType(response.output, 'mcp_call')[0]).toMatchObject({ server_label: 'crm', name: 'lookup', output: 'notes on customers', status: 'completed' });
    expect(received).toEqual([{ tool: 'lookup', args: { topic: 'customers' } }]);
    // a configured server's headers are config's: a request cannot set them
    await expect(client.responses.create({ model: 'clerk', input: 'hi', tools: [{ type: 'mcp', server_label: 'crm', headers: { 'X-Tenant': 'other' } }] })).rejects.toMatchObject({
      status: 400,
      param: 'tools[0].headers',
    });
  });

  it('store: false cannot wait for an approval: the call is refused and the model told why', async () => {
    const response = await client.responses.create({ model: 'analyst', store: false, input: 'Label issue 7', tools: [docs({ allowed_tools: ['add_label'] })] });
    expect(received).toEqual([]);
    expect(response.output.map((i) => i.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
    expect(ofType(response.output, 'mcp_call')[0]).toMatchObject({ status: 'failed', error: expect.stringContaining('store: false') });
  });
});
