import { afterEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { callInRounds, startToolCallingModel, type ToolCallingModel } from '../helpers/fake-tool-calling-model.js';
import { API_KEY, eventually, GATEWAY_TOKEN, hookHeaders } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';
import { startMcpHttpServer, type McpHttpServer } from './mcp-http-server.js';

/**
 * Questions from a server to a person (MCP elicitation, issue 81 item 2): a server made with the
 * SDK asks during a hook run's tool call (elicitation/create on the call's own stream); herald
 * puts the question beside the approvals, a person answers it through the admin API, and the
 * server's tool gets the answer (defaults filled in), a decline, or a cancel when nobody answers.
 */
let model: ToolCallingModel | undefined;
let remote: McpHttpServer | undefined;
afterEach(async () => {
  await model?.close();
  await remote?.close();
  model = remote = undefined;
});

const admin = { authorization: `Bearer ${GATEWAY_TOKEN}`, 'content-type': 'application/json' };
const SCHEMA = {
  type: 'object' as const,
  properties: {
    account: { type: 'string' as const, title: 'Account', description: 'Which account to bill' },
    priority: { type: 'string' as const, enum: ['low', 'normal', 'high'], default: 'normal' },
  },
  required: ['account'],
};

/** `bill` asks which account, then answers with what it was told */
function billingServer(mcp: McpServer): void {
  mcp.registerTool('bill', { description: 'Bills the customer, asking which account', annotations: { readOnlyHint: true } }, async (extra) => {
    const answer = await extra.sendRequest({ method: 'elicitation/create', params: { mode: 'form', message: 'Which account should be billed?', requestedSchema: SCHEMA } }, ElicitResultSchema);
    return { content: [{ type: 'text', text: `answer: ${JSON.stringify({ action: answer.action, content: answer.content ?? null })}` }] };
  });
}

async function heraldWith(extra: { timeoutSeconds?: number; elicitation?: 'ask' | 'decline' } = {}): Promise<TestApp> {
  remote = await startMcpHttpServer(billingServer);
  model = await startToolCallingModel(callInRounds([[{ name: 'billing__bill', arguments: {} }]]));
  const h = await testApp({
    models: { providers: { fake: { api: 'openai', baseUrl: model.url, apiKey: 'sk-fake' } } },
    agents: { defaults: { model: 'fake/tool-model' }, list: [{ id: 'ops', tools: { servers: ['billing'] } }] },
    tools: { mcpServers: { billing: { url: remote.url, ...extra } } },
  });
  await eventually(() => h.gateway.mcp.health()[0]?.state === 'ready', 15_000);
  return h;
}

async function submit(h: TestApp): Promise<string> {
  const res = await h.request('/hooks/agent', { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ message: 'Bill the customer', deliver: false }) });
  expect(res.status).toBe(202);
  return ((await res.json()) as { runId: string }).runId;
}

const pendingQuestion = (h: TestApp) =>
  eventually(async () => {
    const { data } = (await (await h.request('/admin/approvals', { headers: admin })).json()) as { data: any[] };
    return data.find((item) => item.kind === 'question');
  }, 15_000);

const finished = (h: TestApp, id: string) =>
  eventually(async () => {
    const run = (await (await h.request(`/admin/runs/${id}`, { headers: admin })).json()) as Record<string, any>;
    return ['succeeded', 'failed', 'timed_out'].includes(run.status) ? run : undefined;
  }, 20_000);

describe('questions from MCP servers', () => {
  it('puts a hook run\'s question to a person beside the approvals; the accepted answer, defaults filled, reaches the server', async () => {
    const h = await heraldWith();
    const id = await submit(h);
    const question = await pendingQuestion(h);
    expect(question).toMatchObject({ kind: 'question', ownerKind: 'run', ownerId: id, agentId: 'ops', server: 'billing', mode: 'form', message: 'Which account should be billed?', requestedSchema: SCHEMA, status: 'pending' });
    expect(question.toolCallId).toMatch(/^tc_/);

    // a required field left out is refused, naming it
    const missing = await h.request(`/admin/approvals/${question.id}/answer`, { method: 'POST', headers: admin, body: JSON.stringify({ action: 'accept', content: {} }) });
    expect(missing.status).toBe(400);
    expect(await missing.text()).toContain('content.account');

    const answered = await h.request(`/admin/approvals/${question.id}/answer`, { method: 'POST', headers: admin, body: JSON.stringify({ action: 'accept', content: { account: 'acme' } }) });
    expect(answered.status).toBe(200);
    expect(await answered.json()).toMatchObject({ status: 'accepted', content: { account: 'acme', priority: 'normal' } });
    // a second answer is too late
    const again = await h.request(`/admin/approvals/${question.id}/answer`, { method: 'POST', headers: admin, body: JSON.stringify({ action: 'decline' }) });
    expect(again.status).toBe(409);

    const run = await finished(h, id);
    expect(run.status).toBe('succeeded');
    expect(run.reply).toBe('Done: answer: {"action":"accept","content":{"account":"acme","priority":"normal"}}');
    expect(await h.gateway.store.questions.get(question.id)).toMatchObject({ status: 'accepted', answeredBy: expect.any(String) });
  }, 60_000);

  it('a declined question is declined at the server', async () => {
    const h = await heraldWith();
    const id = await submit(h);
    const question = await pendingQuestion(h);
    const res = await h.request(`/admin/approvals/${question.id}/answer`, { method: 'POST', headers: admin, body: JSON.stringify({ action: 'decline' }) });
    expect(res.status).toBe(200);
    expect((await finished(h, id)).reply).toBe('Done: answer: {"action":"decline","content":null}');
  }, 60_000);

  it("a question nobody answers within the call's timeout is cancelled, and the call goes on", async () => {
    const h = await heraldWith({ timeoutSeconds: 1 });
    const id = await submit(h);
    const question = await pendingQuestion(h);
    const run = await finished(h, id);
    expect(run.reply).toBe('Done: answer: {"action":"cancel","content":null}');
    expect(await h.gateway.store.questions.get(question.id)).toMatchObject({ status: 'cancelled', answeredBy: 'timeout' });
    const late = await h.request(`/admin/approvals/${question.id}/answer`, { method: 'POST', headers: admin, body: JSON.stringify({ action: 'accept', content: { account: 'acme' } }) });
    expect(late.status).toBe(409);
  }, 60_000);

  it('declines where no person is waited for (a chat completion), and where the server is set to decline', async () => {
    const h = await heraldWith();
    const client = new OpenAI({ baseURL: `${h.origin}/v1`, apiKey: API_KEY, fetch: h.fetch });
    const completion = await client.chat.completions.create({ model: 'ops', messages: [{ role: 'user', content: 'Bill the customer' }] });
    expect(completion.choices[0]!.message.content).toBe('Done: answer: {"action":"decline","content":null}');
    expect(await h.gateway.store.questions.pending(10)).toEqual([]);
  }, 60_000);

  it('declines a hook run\'s question when the server\'s elicitation is "decline"', async () => {
    const h = await heraldWith({ elicitation: 'decline' });
    const id = await submit(h);
    expect((await finished(h, id)).reply).toBe('Done: answer: {"action":"decline","content":null}');
    expect(await h.gateway.store.questions.pending(10)).toEqual([]);
  }, 60_000);
});
