import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startFakeCollector, type FakeCollector, type ReceivedSpan } from '../helpers/fake-otlp-collector.js';
import { EMBEDDINGS_KEY, startFakeEmbeddings } from '../helpers/fake-embeddings.js';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { callInRounds, startToolCallingModel, type ToolCallingModel } from '../helpers/fake-tool-calling-model.js';
import { API_KEY, GATEWAY_TOKEN, HOOK_TOKEN, baseConfig, eventually, hookHeaders, startHerald, type RunningHerald } from '../helpers/start-herald.js';
import { completion, sse } from '../models/fake-openai.js';
import { startMcpHttpServer, type McpHttpServer } from '../tools/mcp-http-server.js';
import { KIND, only, traceparentOf } from './span-assertions.js';

/**
 * The spans traces.e2e.test.ts does not follow, each exported to a real OTLP receiver: a tool
 * call to an MCP server over Streamable HTTP (the server continues the trace), a heartbeat turn,
 * the Responses API's and the embeddings API's model calls, and the admission and coalescing of a
 * governed mapping's intake. Each span's name, parent and attributes, and nothing secret exported.
 */
// values that must never reach a span: payload values, prompts, tool arguments and results, keys
const PAYLOAD_VALUE = 'payload-value-Vq93-private';
const TOOL_RESULT = 'tool-result-Hd20-private';
const PROMPT_TEXT = 'prompt-text-Mw55-private';
const EMBED_INPUT = 'embedding-input-Tc18-private';
const MCP_TOKEN = 'mcp-server-token-Pz71-secret';
const MODEL_KEY = 'sk-upstream-spans-key-4Rf8';

let herald: RunningHerald | undefined;
let collector: FakeCollector | undefined;
let closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await herald?.stop();
  herald = undefined;
  await collector?.close();
  collector = undefined;
  await Promise.all(closers.map((close) => close()));
  closers = [];
});

/** a Streamable HTTP MCP server (the SDK's own) with one read-only tool that records the traceparent of each call it receives */
async function ticketServer(): Promise<{ server: McpHttpServer; traceparents: (string | undefined)[] }> {
  const traceparents: (string | undefined)[] = [];
  const server = await startMcpHttpServer(
    (mcp) => {
      // a tool's failure is a result marked isError (https://modelcontextprotocol.io/specification/2025-06-18/server/tools#error-handling)
      mcp.registerTool('close_ticket', { description: 'Closes a ticket.', inputSchema: { ticket: z.string() }, annotations: { readOnlyHint: true } }, async (_args, extra) => {
        const header = extra.requestInfo?.headers.traceparent;
        traceparents.push(Array.isArray(header) ? header[0] : header);
        return { content: [{ type: 'text', text: `${TOOL_RESULT} refused` }], isError: true };
      });
      mcp.registerTool('lookup', { description: 'Looks up a ticket.', inputSchema: { ticket: z.string() }, annotations: { readOnlyHint: true } }, async (_args, extra) => {
        const header = extra.requestInfo?.headers.traceparent;
        traceparents.push(Array.isArray(header) ? header[0] : header);
        return { content: [{ type: 'text', text: TOOL_RESULT }] };
      });
    },
    { token: MCP_TOKEN },
  );
  closers.push(() => server.close());
  return { server, traceparents };
}

async function toolModel(): Promise<ToolCallingModel> {
  const model = await startToolCallingModel(callInRounds([[{ name: 'crm__lookup', arguments: { ticket: PAYLOAD_VALUE } }]]));
  closers.push(() => model.close());
  return model;
}

const tracing = () => ({ enabled: true, endpoint: collector!.url });
const toolConfig = (model: ToolCallingModel, mcp: McpHttpServer, extra: Record<string, unknown> = {}) =>
  baseConfig({
    tracing: tracing(),
    models: { providers: { fake: { api: 'openai', baseUrl: model.url, apiKey: MODEL_KEY } } },
    agents: { defaults: { model: 'fake/tool-model' }, list: [{ id: 'main', tools: { servers: ['crm'] } }] },
    tools: { mcpServers: { crm: { url: mcp.url, headers: { Authorization: `Bearer ${MCP_TOKEN}` } } } },
    ...extra,
  });

/** every span exported once herald stopped (its spans flushed), after `ready` holds */
async function exported(ready: (spans: ReceivedSpan[]) => boolean): Promise<ReceivedSpan[]> {
  await herald!.stop();
  return eventually(() => (ready(collector!.spans) ? collector!.spans : undefined));
}

/** nothing of `secrets` in any export's body */
function expectNothingOf(secrets: string[]): void {
  const bodies = Buffer.concat(collector!.exports.map((e) => e.body)).toString('latin1');
  for (const secret of [...secrets, HOOK_TOKEN, GATEWAY_TOKEN, API_KEY]) expect(bodies).not.toContain(secret);
}

const ready = async (h: RunningHerald) => eventually(() => h.gateway.mcp.tools().length === 2);

describe('a tool call to an MCP server over Streamable HTTP', () => {
  it("is an execute_tool span under the hook's run, by the GenAI conventions, and the server receives its traceparent", async () => {
    collector = await startFakeCollector();
    const { server, traceparents } = await ticketServer();
    const model = await toolModel();
    herald = await startHerald(
      toolConfig(model, server, {
        hooks: { mappings: [{ id: 'tickets', match: { path: 'tickets' }, action: 'agent', agentId: 'main', messageTemplate: `${PROMPT_TEXT} {{ ticket }}`, deliver: false, wakeMode: 'next-heartbeat' }] },
      }),
    );
    await ready(herald);
    const res = await fetch(`${herald.url}/hooks/tickets`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ ticket: PAYLOAD_VALUE }) });
    expect(res.status).toBe(202);
    const { runId } = (await res.json()) as { runId: string };
    await eventually(async () => {
      const run = (await (await fetch(`${herald!.url}/admin/runs/${runId}`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).json()) as { status: string };
      return run.status === 'succeeded';
    });
    const spans = await exported((all) => all.some((s) => s.name === 'herald.run' && s.attributes['herald.run.status'] === 'succeeded'));

    const run = only(spans, (s) => s.name === 'herald.run');
    const trace = spans.filter((s) => s.traceId === run.traceId);
    expect(only(trace, (s) => s.name === 'POST /hooks/tickets').parentSpanId).toBe('');
    // two model calls (the tool call, then the answer) and the tool call between them, all under the run
    const calls = trace.filter((s) => s.name === 'chat tool-model');
    expect(calls.map((c) => c.parentSpanId)).toEqual([run.spanId, run.spanId]);
    const tool = only(trace, (s) => s.name === 'execute_tool crm__lookup');
    expect(tool).toMatchObject({ kind: KIND.internal, parentSpanId: run.spanId, statusCode: 0 });
    expect(tool.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'crm__lookup',
      'gen_ai.tool.call.id': expect.stringMatching(/^call_/),
      'herald.tool.server': 'crm',
      'herald.tool.status': 'succeeded',
      'herald.tool.call.id': expect.stringMatching(/^tc_/),
    });
    const [first, second] = calls.sort((a, b) => a.startMs - b.startMs);
    // in whole milliseconds: the SDK stamps a span's start and end from two clocks (Date.now() and performance.now()), which differ by a fraction of one
    expect(Math.floor(first!.endMs)).toBeLessThanOrEqual(Math.ceil(tool.startMs));
    expect(Math.floor(tool.endMs)).toBeLessThanOrEqual(Math.ceil(second!.startMs));

    // the MCP server's tools/call request named the tool call's span
    expect(traceparents.map(traceparentOf)).toEqual([{ traceId: run.traceId, parentId: tool.spanId }]);
    expectNothingOf([PAYLOAD_VALUE, TOOL_RESULT, PROMPT_TEXT, MCP_TOKEN, MODEL_KEY]);
  });

  it('a call that fails is a failed span naming how it ended, never what the server said', async () => {
    collector = await startFakeCollector();
    const { server, traceparents } = await ticketServer();
    const model = await startToolCallingModel(callInRounds([[{ name: 'crm__close_ticket', arguments: { ticket: PAYLOAD_VALUE } }]]));
    closers.push(() => model.close());
    herald = await startHerald(toolConfig(model, server));
    await ready(herald);
    const chat = await fetch(`${herald.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'main', messages: [{ role: 'user', content: PROMPT_TEXT }] }),
    });
    expect(chat.status).toBe(200);
    const spans = await exported((all) => all.some((s) => s.name === 'POST /v1/chat/completions'));

    const request = only(spans, (s) => s.name === 'POST /v1/chat/completions');
    const tool = only(spans, (s) => s.name === 'execute_tool crm__close_ticket');
    expect(tool).toMatchObject({ traceId: request.traceId, parentSpanId: request.spanId, statusCode: 2, statusMessage: 'failed' });
    expect(tool.attributes).toMatchObject({ 'herald.tool.status': 'failed', 'error.type': 'failed' });
    expect(traceparents.map(traceparentOf)).toEqual([{ traceId: request.traceId, parentId: tool.spanId }]);
    expectNothingOf([PAYLOAD_VALUE, TOOL_RESULT, PROMPT_TEXT, MCP_TOKEN, MODEL_KEY]);
  });
});

describe("a mapping's direct tool call (action: tool)", () => {
  it("is an execute_tool span under the run, in the request's trace, and the server receives its traceparent; no model call", async () => {
    collector = await startFakeCollector();
    const { server, traceparents } = await ticketServer();
    const model = await toolModel();
    herald = await startHerald(
      toolConfig(model, server, {
        hooks: { mappings: [{ id: 'lookup', match: { path: 'tickets' }, action: 'tool', tool: 'crm__lookup', arguments: { ticket: '{{ ticket }}' } }] },
      }),
    );
    await ready(herald);
    const res = await fetch(`${herald.url}/hooks/tickets`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ ticket: PAYLOAD_VALUE }) });
    expect(res.status).toBe(202);
    const { runId } = (await res.json()) as { runId: string };
    await eventually(async () => {
      const run = (await (await fetch(`${herald!.url}/admin/runs/${runId}`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).json()) as { status: string };
      return run.status === 'succeeded';
    });
    const spans = await exported((all) => all.some((s) => s.name === 'herald.run' && s.attributes['herald.run.status'] === 'succeeded'));

    const run = only(spans, (s) => s.name === 'herald.run');
    const trace = spans.filter((s) => s.traceId === run.traceId);
    expect(only(trace, (s) => s.name === 'POST /hooks/tickets').parentSpanId).toBe('');
    const tool = only(trace, (s) => s.name === 'execute_tool crm__lookup');
    expect(tool).toMatchObject({ kind: KIND.internal, parentSpanId: run.spanId, statusCode: 0 });
    expect(tool.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'crm__lookup', 'herald.tool.server': 'crm', 'herald.tool.status': 'succeeded' });
    expect(trace.filter((s) => s.name.startsWith('chat '))).toEqual([]);
    expect(traceparents.map(traceparentOf)).toEqual([{ traceId: run.traceId, parentId: tool.spanId }]);
    expect(model.requests).toHaveLength(0);
    expectNothingOf([PAYLOAD_VALUE, TOOL_RESULT, MCP_TOKEN, MODEL_KEY]);
  });
});

describe('a heartbeat turn', () => {
  it('is a trace of its own, its model calls and tool calls under it', async () => {
    collector = await startFakeCollector();
    const { server, traceparents } = await ticketServer();
    const model = await toolModel();
    herald = await startHerald(toolConfig(model, server));
    await ready(herald);
    const wake = await fetch(`${herald.url}/hooks/wake`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ text: `${PROMPT_TEXT} ${PAYLOAD_VALUE}`, mode: 'now' }) });
    expect(wake.status).toBe(200);
    await eventually(() => herald!.logs.some((l) => l.msg === 'heartbeat'));
    const spans = await exported((all) => all.some((s) => s.name === 'herald.heartbeat'));

    const request = only(spans, (s) => s.name === 'POST /hooks/wake');
    expect(request.attributes).toMatchObject({ 'http.response.status_code': 200 });
    const intake = only(spans, (s) => s.name === 'herald.hook.intake');
    expect(intake).toMatchObject({ traceId: request.traceId, parentSpanId: request.spanId });
    expect(intake.attributes).toMatchObject({ 'herald.hook.outcome': 'dispatched', 'herald.wake.event': 'queued', 'herald.coalesced': false });

    // a root span in a trace apart from the wake's: a turn may answer events of many requests
    const heartbeat = only(spans, (s) => s.name === 'herald.heartbeat');
    expect(heartbeat).toMatchObject({ kind: KIND.internal, parentSpanId: '' });
    expect(heartbeat.traceId).not.toBe(request.traceId);
    expect(heartbeat.attributes).toMatchObject({ 'herald.heartbeat.events': 1, 'herald.heartbeat.periodic': false, 'herald.heartbeat.ack': false });
    const trace = spans.filter((s) => s.traceId === heartbeat.traceId);
    const calls = trace.filter((s) => s.name === 'chat tool-model');
    expect(calls).toHaveLength(2);
    for (const call of calls) expect(call).toMatchObject({ kind: KIND.client, parentSpanId: heartbeat.spanId, attributes: expect.objectContaining({ 'gen_ai.operation.name': 'chat', 'herald.model.purpose': 'heartbeat' }) });
    const tool = only(trace, (s) => s.name === 'execute_tool crm__lookup');
    expect(tool).toMatchObject({ parentSpanId: heartbeat.spanId, attributes: expect.objectContaining({ 'herald.tool.status': 'succeeded' }) });
    expect(traceparents.map(traceparentOf)).toEqual([{ traceId: heartbeat.traceId, parentId: tool.spanId }]);
    expectNothingOf([PAYLOAD_VALUE, TOOL_RESULT, PROMPT_TEXT, MCP_TOKEN, MODEL_KEY]);
  });
});

describe('the OpenAI-compatible API', () => {
  it("POST /v1/responses with a remote MCP tool: the call's span under the request's, continued at the server", async () => {
    collector = await startFakeCollector();
    const { server, traceparents } = await ticketServer();
    const model = await startToolCallingModel(callInRounds([[{ name: 'docs__lookup', arguments: { ticket: PAYLOAD_VALUE } }]]));
    closers.push(() => model.close());
    herald = await startHerald(
      baseConfig({
        tracing: tracing(),
        models: { providers: { fake: { api: 'openai', baseUrl: model.url, apiKey: MODEL_KEY } } },
        agents: { defaults: { model: 'fake/tool-model' } },
        tools: { remoteAllowlist: [server.url] },
      }),
    );
    const res = await fetch(`${herald.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'main',
        input: PROMPT_TEXT,
        tools: [{ type: 'mcp', server_label: 'docs', server_url: server.url, headers: { Authorization: `Bearer ${MCP_TOKEN}` }, require_approval: 'never' }],
      }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { output: { type: string }[] }).output.map((i) => i.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
    const spans = await exported((all) => all.some((s) => s.name === 'POST /v1/responses'));

    const request = only(spans, (s) => s.name === 'POST /v1/responses');
    const trace = spans.filter((s) => s.traceId === request.traceId);
    expect(trace.filter((s) => s.name === 'chat tool-model').map((s) => s.parentSpanId)).toEqual([request.spanId, request.spanId]);
    const tool = only(trace, (s) => s.name === 'execute_tool docs__lookup');
    expect(tool).toMatchObject({ kind: KIND.internal, parentSpanId: request.spanId });
    expect(tool.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'docs__lookup', 'herald.tool.server': 'docs', 'herald.tool.status': 'succeeded' });
    expect(traceparents.map(traceparentOf)).toEqual([{ traceId: request.traceId, parentId: tool.spanId }]);
    expectNothingOf([PAYLOAD_VALUE, TOOL_RESULT, PROMPT_TEXT, MCP_TOKEN, MODEL_KEY]);
  });

  it("POST /v1/responses, plain and streamed: a chat span under the request's, continued at the model", async () => {
    collector = await startFakeCollector();
    const model = await startFakeServer((req) =>
      req.json?.stream ? { headers: { 'content-type': 'text/event-stream' }, body: sse(['streamed ', 'answer']) } : { body: completion('plain answer') },
    );
    closers.push(() => model.close());
    herald = await startHerald(
      baseConfig({ tracing: tracing(), models: { providers: { fake: { api: 'openai', baseUrl: `${model.url}/v1`, apiKey: MODEL_KEY } } }, agents: { defaults: { model: 'fake/test-model' } } }),
    );
    const post = (stream: boolean) =>
      fetch(`${herald!.url}/v1/responses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'main', input: PROMPT_TEXT, stream }),
      });
    const plain = await post(false);
    expect(plain.status).toBe(200);
    expect(((await plain.json()) as { status: string }).status).toBe('completed');
    const streamed = await post(true);
    expect(streamed.status).toBe(200);
    expect(await streamed.text()).toContain('response.completed');
    const spans = await exported((all) => all.filter((s) => s.name === 'chat test-model').length === 2 && all.filter((s) => s.name === 'POST /v1/responses').length === 2);

    const requests = spans.filter((s) => s.name === 'POST /v1/responses').sort((a, b) => a.startMs - b.startMs);
    expect(requests.map((r) => r.kind)).toEqual([KIND.server, KIND.server]);
    expect(requests.map((r) => r.attributes['http.response.status_code'])).toEqual([200, 200]);
    for (const [i, request] of requests.entries()) {
      const call = only(spans, (s) => s.name === 'chat test-model' && s.traceId === request.traceId);
      expect(call).toMatchObject({ kind: KIND.client, parentSpanId: request.spanId, statusCode: 0 });
      expect(call.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'fake',
        'gen_ai.system': 'fake',
        'gen_ai.request.model': 'test-model',
        'herald.model.ref': 'fake/test-model',
        'gen_ai.usage.input_tokens': i === 0 ? 3 : 4,
        'gen_ai.usage.output_tokens': 2,
        'gen_ai.response.finish_reasons': ['stop'],
      });
      expect(traceparentOf(model.requests[i]!.headers.traceparent)).toEqual({ traceId: request.traceId, parentId: call.spanId });
    }
    expectNothingOf([PROMPT_TEXT, 'plain answer', 'streamed ', MODEL_KEY]);
  });

  it('POST /v1/embeddings: an embeddings span under the request\'s, continued at the provider', async () => {
    collector = await startFakeCollector();
    const provider = await startFakeEmbeddings('text-embedding-3-small');
    closers.push(() => provider.close());
    herald = await startHerald(
      baseConfig({
        tracing: tracing(),
        models: { providers: { fake: { api: 'openai', baseUrl: `${provider.url}/v1`, apiKey: EMBEDDINGS_KEY } } },
        platform: { embeddings: { models: ['fake/text-embedding-3-small'] } },
      }),
    );
    const res = await fetch(`${herald.url}/v1/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'text-embedding-3-small', input: [EMBED_INPUT, 'a second one'], encoding_format: 'float' }),
    });
    expect(res.status).toBe(200);
    const spans = await exported((all) => all.some((s) => s.name === 'POST /v1/embeddings'));

    const request = only(spans, (s) => s.name === 'POST /v1/embeddings');
    expect(request).toMatchObject({ kind: KIND.server, attributes: expect.objectContaining({ 'http.response.status_code': 200 }) });
    const call = only(spans, (s) => s.name === 'embeddings text-embedding-3-small');
    expect(call).toMatchObject({ kind: KIND.client, traceId: request.traceId, parentSpanId: request.spanId, statusCode: 0 });
    expect(call.attributes).toMatchObject({
      'gen_ai.operation.name': 'embeddings',
      'gen_ai.provider.name': 'fake',
      'gen_ai.system': 'fake',
      'gen_ai.request.model': 'text-embedding-3-small',
      'herald.model.ref': 'fake/text-embedding-3-small',
      'herald.embeddings.inputs': 2,
      'gen_ai.usage.input_tokens': 4,
    });
    expect(traceparentOf(provider.requests[0]!.headers.traceparent)).toEqual({ traceId: request.traceId, parentId: call.spanId });
    expectNothingOf([EMBED_INPUT, 'a second one', EMBEDDINGS_KEY]);
  });
});

describe("a governed mapping's intake", () => {
  it('carries the admission: queued, coalesced into the first run, rate-limited', async () => {
    collector = await startFakeCollector();
    const model = await startFakeServer(() => ({ body: completion('looked into it') }));
    closers.push(() => model.close());
    const governed = (id: string, traffic: Record<string, unknown>) => ({ id, match: { path: id }, messageTemplate: '{{ text }}', deliver: false, wakeMode: 'next-heartbeat', ...traffic });
    herald = await startHerald(
      baseConfig({
        tracing: tracing(),
        models: { providers: { fake: { api: 'openai', baseUrl: `${model.url}/v1`, apiKey: MODEL_KEY } } },
        agents: { defaults: { model: 'fake/test-model' } },
        hooks: { mappings: [governed('alerts', { coalesce: { windowMs: 3_600_000, key: '{{ service }}' } }), governed('deploys', { rate: { runs: 1, per: '1h', overflow: 'reject' } })] },
      }),
    );
    const post = (path: string, payload: Record<string, unknown>) => fetch(`${herald!.url}/hooks/${path}`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify(payload) });
    // a wake repeating the pending event joins it (OpenClaw's eventOutcome "coalesced"); sent first, before a run's summary can come between
    const wake = () => post('wake', { text: PAYLOAD_VALUE, mode: 'next-heartbeat' }).then((r) => r.json() as Promise<{ eventOutcome: string }>);
    expect((await wake()).eventOutcome).toBe('queued');
    expect((await wake()).eventOutcome).toBe('coalesced');
    const first = await post('alerts', { service: 'db', text: PAYLOAD_VALUE });
    expect(first.status).toBe(202);
    const { runId } = (await first.json()) as { runId: string };
    const second = await post('alerts', { service: 'db', text: `${PAYLOAD_VALUE} again` });
    expect(await second.json()).toEqual({ ok: true, runId, coalesced: true });
    expect((await post('deploys', { text: 'v1' })).status).toBe(202);
    expect((await post('deploys', { text: 'v2' })).status).toBe(429);
    const spans = await exported((all) => all.filter((s) => s.name === 'herald.hook.intake').length === 6);

    const wakes = spans.filter((s) => s.name === 'herald.hook.intake' && s.attributes['herald.hook.path'] === 'wake').sort((a, b) => a.startMs - b.startMs);
    expect(wakes.map((w) => [w.attributes['herald.wake.event'], w.attributes['herald.coalesced']])).toEqual([['queued', false], ['coalesced', true]]);
    expect(wakes.every((w) => !('herald.admission' in w.attributes))).toBe(true);
    const intakes = spans.filter((s) => s.name === 'herald.hook.intake' && s.attributes['herald.hook.path'] !== 'wake').sort((a, b) => a.startMs - b.startMs);
    for (const intake of intakes) {
      const request = only(spans, (s) => s.spanId === intake.parentSpanId);
      expect(request).toMatchObject({ kind: KIND.server, traceId: intake.traceId, name: `POST /hooks/${intake.attributes['herald.mapping.id']}` });
    }
    expect(intakes.map((i) => i.attributes['herald.mapping.id'])).toEqual(['alerts', 'alerts', 'deploys', 'deploys']);
    // the first event of its key waits out the window in the queue; the second joins its run
    expect(intakes[0]!.attributes).toMatchObject({ 'herald.admission': 'queued', 'herald.admission.waited_for': 'coalesce', 'herald.coalesced': false, 'herald.run.id': runId });
    expect(intakes[1]!.attributes).toMatchObject({ 'herald.admission': 'coalesced', 'herald.coalesced': true, 'herald.run.id': runId });
    expect(intakes[1]!.attributes).not.toHaveProperty('herald.admission.waited_for');
    expect(intakes[2]!.attributes).toMatchObject({ 'herald.admission': 'queued', 'herald.coalesced': false });
    // refused by the rate: the intake fails with the code, the request answers 429
    expect(intakes[3]!).toMatchObject({ statusCode: 2, attributes: expect.objectContaining({ 'herald.admission': 'rate-limited', 'error.type': 'HERALD_RATE_LIMITED' }) });
    expect(only(spans, (s) => s.spanId === intakes[3]!.parentSpanId).attributes).toMatchObject({ 'http.response.status_code': 429 });
    expectNothingOf([PAYLOAD_VALUE, MODEL_KEY]);
  });
});
