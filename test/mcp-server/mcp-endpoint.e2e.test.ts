import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { testApp, type TestApp } from '../http/app-fixture.js';
import { API_KEY, GATEWAY_TOKEN } from '../helpers/start-herald.js';
import { startTicketServer, type TicketServer } from '../tools/ticket-server.js';
import { connectClient } from './mcp-client.js';

/**
 * herald as an MCP server: the SDK's own Client over Streamable HTTP against /mcp, a real ticket
 * MCP server (the SDK's server) upstream, herald's own parts unmocked.
 */
const OTHER_KEY = 'sk-other-0123456789abcdef0123';
let tickets: TicketServer | undefined;
afterEach(async () => {
  await tickets?.close();
  tickets = undefined;
});

async function herald(mcp: Record<string, unknown> = {}, keyTools: Record<string, unknown> = { servers: ['tickets'] }): Promise<TestApp> {
  tickets = await startTicketServer();
  return testApp({
    platform: {
      mcp: { enabled: true, ...mcp },
      apiKeys: [
        { name: 'test', key: API_KEY, tools: keyTools },
        { name: 'other', key: OTHER_KEY, agents: ['main'] },
      ],
    },
    agents: { list: [{ id: 'main', name: 'Main' }, { id: 'support', name: 'Support' }] },
    tools: { mcpServers: { tickets: { url: tickets.url } } },
  });
}

const initialize = (key?: string, headers: Record<string, string> = {}) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(key && { authorization: `Bearer ${key}` }), ...headers },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'curl', version: '1' } } }),
});

describe('/mcp', () => {
  it('is off unless platform.mcp.enabled', async () => {
    const h = await testApp();
    expect((await h.request('/mcp', initialize(API_KEY))).status).toBe(404);
    expect((await h.request('/.well-known/oauth-protected-resource/mcp')).status).toBe(404);
  });

  it('401 without a key, its WWW-Authenticate naming the Protected Resource Metadata (RFC 9728), which herald serves', async () => {
    const h = await herald();
    const refused = await h.request(`${h.origin}/mcp`, initialize());
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer resource_metadata="http://herald.test/.well-known/oauth-protected-resource/mcp"');
    expect(await refused.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringContaining('Authorization: Bearer') }, id: null });
    const wrong = await h.request('/mcp', initialize('sk-wrong-0123456789abcdef'));
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const metadata = await h.request(`${h.origin}/.well-known/oauth-protected-resource/mcp`);
    expect(await metadata.json()).toMatchObject({ resource: 'http://herald.test/mcp', bearer_methods_supported: ['header'] });
  });

  it('refuses a foreign Origin (DNS rebinding) and accepts its own and the configured ones', async () => {
    const h = await herald({ allowedOrigins: ['https://app.example'] });
    const foreign = await h.request('/mcp', initialize(API_KEY, { origin: 'https://evil.example' }));
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as { error: { code: number; message: string } }).error.message).toContain('platform.mcp.allowedOrigins');
    expect((await h.request('/mcp', initialize(API_KEY, { origin: 'https://app.example' }))).status).toBe(200);
    expect((await h.request(`${h.origin}/mcp`, initialize(API_KEY, { origin: h.origin }))).status).toBe(200);
  });

  it('garbage is a JSON-RPC parse error, a body past maxBodyBytes a 413, a request without a session a 400, an unknown session a 404', async () => {
    const h = await herald({ maxBodyBytes: 1024 });
    const auth = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const garbage = await h.request('/mcp', { method: 'POST', headers: auth, body: '{not json' });
    expect(garbage.status).toBe(400);
    expect(((await garbage.json()) as { error: { code: number; message: string } }).error.code).toBe(-32700);
    const big = await h.request('/mcp', { method: 'POST', headers: auth, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(5000) } }) });
    expect(big.status).toBe(413);
    expect(((await big.json()) as { error: { code: number; message: string } }).error.message).toContain('platform.mcp.maxBodyBytes');
    const noSession = await h.request('/mcp', { method: 'POST', headers: auth, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) });
    expect(noSession.status).toBe(400);
    const unknown = await h.request('/mcp', { method: 'POST', headers: { ...auth, 'mcp-session-id': 'nope' }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) });
    expect(unknown.status).toBe(404);
  });

  it('caps the sessions one key holds (429), not another key', async () => {
    const h = await herald({ maxSessionsPerKey: 2 });
    await connectClient(h, { key: API_KEY });
    await connectClient(h, { key: API_KEY });
    const third = await h.request('/mcp', initialize(API_KEY));
    expect(third.status).toBe(429);
    expect(((await third.json()) as { error: { code: number; message: string } }).error.message).toContain('platform.mcp.maxSessionsPerKey');
    await connectClient(h, { key: OTHER_KEY });
  });

  it("lists ask_<agent> for each agent the key may use and the tools it is granted; another key sees only its own", async () => {
    const h = await herald();
    const client = await connectClient(h, { key: API_KEY });
    expect(client.getServerVersion()).toMatchObject({ name: 'herald' });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['ask_main', 'ask_support', 'search_documents', 'tickets__close_ticket', 'tickets__lookup_ticket']);
    expect(tools.find((t) => t.name === 'ask_main')).toMatchObject({ inputSchema: { required: ['message'] }, outputSchema: { required: ['reply', 'conversation', 'citations'] } });
    expect(tools.find((t) => t.name === 'tickets__lookup_ticket')!.annotations).toMatchObject({ readOnlyHint: true });
    const other = await connectClient(h, { key: OTHER_KEY });
    expect((await other.listTools()).tools.map((t) => t.name).sort()).toEqual(['ask_main', 'search_documents']);
    // a tool it is not granted does not exist for it
    await expect(other.callTool({ name: 'tickets__lookup_ticket', arguments: { id: '7' } })).rejects.toThrow(/Unknown tool/);
    await expect(other.callTool({ name: 'ask_support', arguments: { message: 'hi' } })).rejects.toThrow(/Unknown tool/);
    expect(tickets!.invocations).toEqual([]);
  });

  it("a reload narrowing a key's grant applies to its open session's next listing and call", async () => {
    const h = await herald();
    const client = await connectClient(h, { key: API_KEY });
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('tickets__close_ticket');
    expect(await client.callTool({ name: 'tickets__lookup_ticket', arguments: { id: '7' } })).toMatchObject({ isError: false });
    const file = path.join(h.dir, 'herald.json');
    const next = JSON.parse(fs.readFileSync(file, 'utf8'));
    next.platform.apiKeys[0].tools = { servers: ['tickets'], deny: ['*close*'] };
    fs.writeFileSync(file, JSON.stringify(next));
    expect((await h.gateway.reload('test')).ok).toBe(true);
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('tickets__close_ticket');
    await expect(client.callTool({ name: 'tickets__close_ticket', arguments: { id: '7' } })).rejects.toThrow(/Unknown tool/);
    expect(tickets!.invocations).toEqual([{ tool: 'lookup_ticket', id: '7' }]);
  });

  it('a granted call runs through herald and is on the record with its key; bad arguments are refused before the server sees them', async () => {
    const h = await herald();
    const client = await connectClient(h, { key: API_KEY, name: 'claude-code' });
    const result = await client.callTool({ name: 'tickets__lookup_ticket', arguments: { id: '7' } });
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'ticket 7 is open' }], isError: false });
    const bad = await client.callTool({ name: 'tickets__lookup_ticket', arguments: { id: 7 } });
    expect(bad.isError).toBe(true);
    expect((bad.content as { text: string }[])[0]!.text).toContain("the arguments do not match the tool's schema: /id must be string");
    expect(tickets!.invocations).toEqual([{ tool: 'lookup_ticket', id: '7' }]);
    const [session] = h.gateway.mcpSessions.view();
    expect(session).toMatchObject({ key: 'test', client: { name: 'claude-code', version: '1.2.3' }, calls: 2 });
    const calls = await h.gateway.store.toolCalls.ofOwner('mcp', session!.id);
    expect(calls).toMatchObject([
      { server: 'tickets', tool: 'lookup_ticket', status: 'succeeded', keyName: 'test', result: 'ticket 7 is open' },
      { server: 'tickets', tool: 'lookup_ticket', status: 'refused', keyName: 'test' },
    ]);
  });

  it('a call that needs approval asks the client user by elicitation: accepted runs, declined does not', async () => {
    const h = await herald({}, { servers: ['tickets'], requireApproval: { tools: ['tickets__close_ticket'] } });
    const asked: string[] = [];
    const yes = await connectClient(h, { key: API_KEY, elicit: (message) => (asked.push(message), 'accept') });
    expect(await yes.callTool({ name: 'tickets__close_ticket', arguments: { id: '9' } })).toMatchObject({ content: [{ text: 'closed 9' }], isError: false });
    expect(asked[0]).toContain('tickets__close_ticket');
    expect(asked[0]).toContain('"id": "9"');
    const no = await connectClient(h, { key: API_KEY, elicit: () => 'decline' });
    const declined = await no.callTool({ name: 'tickets__close_ticket', arguments: { id: '10' } });
    expect(declined).toMatchObject({ isError: true, content: [{ text: "tickets__close_ticket was declined by the client's user" }] });
    expect(tickets!.invocations).toEqual([{ tool: 'close_ticket', id: '9' }]);
    const sessions = h.gateway.mcpSessions.view();
    const records = (await Promise.all(sessions.map((s) => h.gateway.store.toolCalls.ofOwner('mcp', s.id)))).flat();
    expect(records.map((r) => [r.status, r.approval?.decision]).sort()).toEqual([
      ['denied', 'denied'],
      ['succeeded', 'approved'],
    ]);
  });

  it("without elicitation the call waits on herald's Approvals page, with progress, and runs once a person approves", async () => {
    const h = await herald({}, { servers: ['tickets'], requireApproval: 'always' });
    const client = await connectClient(h, { key: API_KEY });
    const progress: string[] = [];
    const calling = client.callTool({ name: 'tickets__close_ticket', arguments: { id: '11' } }, undefined, { onprogress: (p) => void progress.push(p.message ?? ''), timeout: 60_000 });
    let pending = await h.gateway.store.toolCalls.pendingApprovals(10);
    while (!pending.length) {
      await new Promise((r) => setTimeout(r, 20));
      pending = await h.gateway.store.toolCalls.pendingApprovals(10);
    }
    expect(pending[0]).toMatchObject({ ownerKind: 'mcp', keyName: 'test', server: 'tickets', tool: 'close_ticket' });
    // the console's Approvals page names the client (from its initialize) and its key
    const listed = (await (await h.request('/admin/approvals', { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).json()) as { data: { id: string; mcpClient: unknown }[] };
    expect(listed.data.find((a) => a.id === pending[0]!.id)?.mcpClient).toEqual({ name: 'test-client', version: '1.2.3', key: 'test' });
    const decided = await h.request(`/admin/approvals/${pending[0]!.id}/approve`, { method: 'POST', headers: { authorization: `Bearer ${GATEWAY_TOKEN}`, 'content-type': 'application/json' }, body: '{}' });
    expect(decided.status).toBeLessThan(300);
    expect(await calling).toMatchObject({ content: [{ text: 'closed 11' }], isError: false });
    expect(progress.length).toBeGreaterThan(0);
    expect(progress[0]).toContain("waiting for a person's approval");
    expect(tickets!.invocations).toEqual([{ tool: 'close_ticket', id: '11' }]);
  });

  it("the operator's view: GET /admin/mcp/sessions lists the connected clients, /metrics counts sessions and calls by key", async () => {
    const h = await herald();
    const client = await connectClient(h, { key: API_KEY, name: 'cursor' });
    await client.callTool({ name: 'tickets__lookup_ticket', arguments: { id: '1' } });
    await client.callTool({ name: 'tickets__lookup_ticket', arguments: { id: 1 } });
    const admin = { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } };
    const listed = await h.request('/admin/mcp/sessions', admin);
    expect(listed.status).toBe(200);
    expect(await listed.json()).toMatchObject({ data: [{ key: 'test', client: { name: 'cursor', version: '1.2.3' }, calls: 2 }] });
    const metrics = await (await h.request('/metrics', admin)).text();
    expect(metrics).toContain('herald_mcp_sessions{key="test"} 1');
    expect(metrics).toContain('herald_mcp_calls_total{key="test",kind="governed",outcome="ok"} 1');
    expect(metrics).toContain('herald_mcp_calls_total{key="test",kind="governed",outcome="error"} 1');
    expect(metrics).toContain('herald_tool_calls_total{server="tickets",tool="lookup_ticket",outcome="refused",source="mcp"} 1');
  });
});
