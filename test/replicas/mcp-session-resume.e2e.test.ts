import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { dropSchema, requirePostgres, testPgUrl, uniqueSchema } from '../helpers/postgres.js';
import { API_KEY, GATEWAY_TOKEN, eventually } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';
import { startTicketServer, type TicketServer } from '../tools/ticket-server.js';

/**
 * Two heralds on one PostgreSQL schema behind one address (a `fetch` that sends every request to
 * the replica the "load balancer" points at): an MCP session opened through replica A goes on
 * through replica B once A is gone, with the same Mcp-Session-Id, and a call's stream that the
 * client lost while A answered it is resumed on B with Last-Event-ID, B replaying what it missed
 * (MCP's transport spec, "Resumability and Redelivery"). The SDK's own Client.
 */
let tickets: TicketServer | undefined;
let schema: string | undefined;
afterEach(async () => {
  await tickets?.close();
  if (schema) await dropSchema(schema);
  tickets = schema = undefined;
});

interface SseEvent {
  id?: string;
  data: string;
}

/** reads a response's SSE events until one satisfies `until`, then lets go of the stream */
async function readEvents(response: Response, until: (event: SseEvent) => boolean): Promise<SseEvent[]> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: SseEvent[] = [];
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return events;
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event: SseEvent = { data: '' };
        for (const line of block.split('\n')) {
          if (line.startsWith('id:')) event.id = line.slice(3).trim();
          if (line.startsWith('data:')) event.data += line.slice(5).trim();
        }
        events.push(event);
        if (until(event)) return events;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

describe('an MCP session across two replicas on PostgreSQL', { timeout: 120_000 }, () => {
  it('goes on through replica B once A is gone, on the same session id, and a lost stream is resumed on B with what it missed', async () => {
    await requirePostgres();
    tickets = await startTicketServer();
    schema = uniqueSchema('herald_mcp_resume');
    const config = {
      storage: { postgres: { url: testPgUrl(), schema, poolSize: 4 } },
      platform: { mcp: { enabled: true }, apiKeys: [{ name: 'ops', key: API_KEY, tools: { servers: ['tickets'] } }] },
      tools: { mcpServers: { tickets: { url: tickets.url } } },
    };
    // one after the other: the first migrates the schema
    const a = await testApp(config);
    const b = await testApp(config);
    let behind: TestApp = a;
    const balanced: typeof fetch = (input, init) => behind.fetch(input, init);

    const client = new Client({ name: 'resume-test', version: '2.0.1' });
    const transport = new StreamableHTTPClientTransport(new URL(`${a.origin}/mcp`), { fetch: balanced, requestInit: { headers: { authorization: `Bearer ${API_KEY}` } } });
    await client.connect(transport);
    const sessionId = transport.sessionId!;
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('tickets__close_ticket');

    // a call through A whose stream the client loses after its first event (the priming one, which names where to resume)
    const headers = { authorization: `Bearer ${API_KEY}`, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25', accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
    tickets.holdNext();
    const posted = await balanced(`${a.origin}/mcp`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 77, method: 'tools/call', params: { name: 'tickets__close_ticket', arguments: { id: '41' } } }) });
    expect(posted.status).toBe(200);
    const [priming] = await readEvents(posted, (e) => e.id !== undefined);
    expect(priming!.id).toMatch(/\.\d{16}$/);
    // A finishes the call with nobody listening, then goes away
    await eventually(() => tickets!.invocations.length === 1, 30_000);
    tickets.release();
    await eventually(async () => (await a.gateway.store.state.list<{ id?: number }>('mcp-event:')).some((e) => e.value?.id === 77), 30_000);
    behind = b;
    await a.stop();

    // the client comes back through B with Last-Event-ID: B never saw the session, and replays the call's answer
    const resumed = await balanced(`${a.origin}/mcp`, { method: 'GET', headers: { ...headers, 'last-event-id': priming!.id! } });
    expect(resumed.status).toBe(200);
    expect(resumed.headers.get('mcp-session-id')).toBe(sessionId);
    const replayed = await readEvents(resumed, (e) => e.data.includes('"id":77'));
    const answer = JSON.parse(replayed.at(-1)!.data) as { id: number; result: { content: { text: string }[]; isError?: boolean } };
    expect(answer.id).toBe(77);
    expect(answer.result.isError).toBeFalsy();
    expect(answer.result.content[0]!.text).toContain('41');

    // and the SDK's client goes on, on the same session, through B
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('tickets__close_ticket');
    const second = await client.callTool({ name: 'tickets__close_ticket', arguments: { id: '42' } });
    expect(second.isError).toBeFalsy();
    expect(transport.sessionId).toBe(sessionId);
    expect(tickets.invocations).toEqual([
      { tool: 'close_ticket', id: '41' },
      { tool: 'close_ticket', id: '42' },
    ]);
    // B names the client as A heard it in initialize
    const sessions = (await (await b.request('/admin/mcp/sessions', { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).json()) as { sessions?: { id: string; client: unknown }[] };
    expect(JSON.stringify(sessions)).toContain('resume-test');
    await client.close().catch(() => undefined);
  });
});
