import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, GATEWAY_TOKEN, baseConfig, eventually, startHerald, type RunningHerald } from '../../helpers/start-herald.js';
import { rawRequest } from '../raw-socket.js';

/**
 * Under `herald serve`, POST /v1/chat/completions is answered from Node's request
 * (src/http/v1/chat/chat-listener.ts), every other /v1 call by the hono app; `app.request()`
 * reaches the hono route. Both must answer alike, and count against one gate.
 */
let herald: RunningHerald;
const agents = [{ id: 'support', instructions: 'Be brief.' }, { id: 'sales' }];
const OTHER_KEY = 'sk-other-0123456789abcdef0123';

beforeAll(async () => {
  herald = await startHerald(
    baseConfig({
      agents: { list: agents },
      platform: { apiKeys: [{ name: 'test', key: API_KEY }, { name: 'limited', key: OTHER_KEY, agents: ['sales'] }], rateLimit: { requestsPerMinute: 600 } },
    }),
  );
});
afterAll(async () => herald?.stop());

const json = { 'content-type': 'application/json' };
const auth = (key = API_KEY) => ({ authorization: `Bearer ${key}` });
const ask = (content: string, more: Record<string, unknown> = {}) => JSON.stringify({ model: 'support', messages: [{ role: 'user', content }], ...more });

/** one request through the socket and through app.request(), each answer as a comparable record */
async function bothWays(path: string, init: RequestInit) {
  const read = async (res: Response) => {
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: compared as text
    }
    return { status: res.status, type: res.headers.get('content-type'), body, headers: res.headers };
  };
  return {
    node: await read(await fetch(`${herald.url}${path}`, init)),
    hono: await read(await herald.gateway.app.request(path, init)),
  };
}

/** what differs between two answers of the same request by design: fresh ids and times */
const stable = (body: unknown) => JSON.parse(JSON.stringify(body).replace(/chatcmpl-[0-9a-f]+/g, 'chatcmpl-x').replace(/conv_[0-9a-f]+/g, 'conv_x').replace(/"created":\d+/g, '"created":0'));

describe('POST /v1/chat/completions from Node\'s request', () => {
  it('answers the openai client, plain and streamed, with the request id, the conversation and the rate limit\'s headers', async () => {
    const client = new OpenAI({ baseURL: `${herald.url}/v1`, apiKey: API_KEY, maxRetries: 0, defaultHeaders: { 'x-request-id': 'my-request-1' } });
    const { data: completion, response } = await client.chat.completions.create({ model: 'support', messages: [{ role: 'user', content: 'hello there' }] }).withResponse();
    expect(completion).toMatchObject({ object: 'chat.completion', model: 'support', choices: [{ index: 0, message: { role: 'assistant' }, finish_reason: 'stop' }] });
    expect(response.headers.get('x-request-id')).toBe('my-request-1');
    expect(response.headers.get('x-conversation-id')).toMatch(/^conv_[0-9a-f]{24}$/);
    expect(response.headers.get('x-ratelimit-limit-requests')).toBe('600');
    expect(response.headers.get('content-type')).toBe('application/json');

    const stream = await client.chat.completions.create({ model: 'support', messages: [{ role: 'user', content: 'and streamed?' }], stream: true, stream_options: { include_usage: true } });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('stop');
    expect(chunks.at(-1)!.usage).toMatchObject({ total_tokens: expect.any(Number) });

    const line = await eventually(() => herald.logs.find((l) => l.msg === 'request' && l.reqId === 'my-request-1'));
    expect(line).toMatchObject({ method: 'POST', path: '/v1/chat/completions', status: 200 });
    expect(line.bodyBytes).toBeGreaterThan(0);
    const metrics = await (await fetch(`${herald.url}/metrics`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).text();
    expect(metrics).toMatch(/herald_http_requests_total\{surface="v1",method="POST",status="200"\} [2-9]/);
  });

  it('continues a conversation named by conversation_id, whichever way its turns came', async () => {
    const first = await fetch(`${herald.url}/v1/chat/completions`, { method: 'POST', headers: { ...json, ...auth() }, body: ask('my order is 4217') });
    const { conversation_id } = (await first.json()) as { conversation_id: string };
    const second = await herald.gateway.app.request('/v1/chat/completions', { method: 'POST', headers: { ...json, ...auth() }, body: ask('what was my order?', { conversation_id }) });
    expect(second.status).toBe(200);
    const third = await fetch(`${herald.url}/v1/chat/completions`, { method: 'POST', headers: { ...json, ...auth() }, body: ask('thanks', { conversation_id }) });
    expect(((await third.json()) as { conversation_id: string }).conversation_id).toBe(conversation_id);
    const messages = await (await fetch(`${herald.url}/admin/sessions/${encodeURIComponent(`chat:${conversation_id}`)}/messages`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).json();
    expect((messages as { data: { role: string }[] }).data.filter((m) => m.role === 'user')).toHaveLength(3);
  });

  it('refuses as the hono route does: status, OpenAI error body, headers', async () => {
    const cases: [string, RequestInit][] = [
      ['no key', { method: 'POST', headers: json, body: ask('hi') }],
      ['a wrong key', { method: 'POST', headers: { ...json, ...auth('sk-wrong-0123456789') }, body: ask('hi') }],
      ['malformed JSON', { method: 'POST', headers: { ...json, ...auth() }, body: '{"model":' }],
      ['no messages', { method: 'POST', headers: { ...json, ...auth() }, body: JSON.stringify({ model: 'support' }) }],
      ['an unknown agent', { method: 'POST', headers: { ...json, ...auth() }, body: JSON.stringify({ model: 'nobody', messages: [{ role: 'user', content: 'hi' }] }) }],
      ['an agent the key may not use', { method: 'POST', headers: { ...json, ...auth(OTHER_KEY) }, body: ask('hi') }],
    ];
    for (const [name, init] of cases) {
      const { node, hono } = await bothWays('/v1/chat/completions', init);
      expect(node.status, name).toBeGreaterThanOrEqual(400);
      expect({ status: node.status, type: node.type, body: node.body }, name).toEqual({ status: hono.status, type: hono.type, body: hono.body });
      expect((node.body as { error: { message: string; type: string } }).error.message, name).toEqual(expect.any(String));
    }
    // a declared length over the limit: refused before a byte of it is read, and the connection closed
    const big = await rawRequest(herald.url, `POST /v1/chat/completions HTTP/1.1\nHost: 127.0.0.1\nAuthorization: Bearer ${API_KEY}\nContent-Type: application/json\nContent-Length: ${5 * 1024 * 1024}`, ['{"model":']);
    expect(big.status).toBe(413);
    expect(big.headers.connection).toBe('close');
    expect(JSON.parse(big.body)).toEqual({ error: { message: `The request body is larger than ${4 * 1024 * 1024} bytes.`, type: 'invalid_request_error', param: null, code: 'request_too_large' } });
  });

  it('leaves what is not exactly the route to the app, which answers as it always did', async () => {
    for (const [path, init] of [
      ['/v1/chat/completions/', { method: 'POST', headers: { ...json, ...auth() }, body: ask('hi') }],
      ['/v1/chat/completions', { method: 'GET', headers: auth() }],
      ['/v1/chat/%63ompletions', { method: 'POST', headers: { ...json, ...auth() }, body: ask('hi') }],
    ] as [string, RequestInit][]) {
      const { node, hono } = await bothWays(path, init);
      expect({ status: node.status, body: stable(node.body) }, `${init.method} ${path}`).toEqual({ status: hono.status, body: stable(hono.body) });
    }
  });

  it('counts against the same gate as the rest of /v1: one key\'s rate limit, one address\'s failed keys', async () => {
    const limited = await startHerald(baseConfig({ agents: { list: agents }, platform: { rateLimit: { requestsPerMinute: 3 } } }));
    try {
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${limited.url}/v1/chat/completions`, { method: 'POST', headers: { ...json, ...auth() }, body: ask('hi') });
        expect(res.status).toBe(200);
      }
      const models = await fetch(`${limited.url}/v1/models`, { headers: auth() });
      expect(models.status).toBe(429);
      expect(Number(models.headers.get('retry-after'))).toBeGreaterThan(0);
      const chat = await fetch(`${limited.url}/v1/chat/completions`, { method: 'POST', headers: { ...json, ...auth() }, body: ask('hi') });
      expect(chat.status).toBe(429);
      expect(chat.headers.get('x-ratelimit-remaining-requests')).toBe('0');
      expect(await chat.json()).toMatchObject({ error: { type: 'rate_limit_error', code: 'rate_limit_exceeded' } });

      // twenty wrong keys on the chat route make the address's wrong keys 429 on every /v1 route
      for (let i = 0; i < 20; i++) {
        const res = await fetch(`${limited.url}/v1/chat/completions`, { method: 'POST', headers: { ...json, ...auth(`sk-wrong-${i}-0123456789`) }, body: ask('hi') });
        expect(res.status).toBe(401);
      }
      const locked = await fetch(`${limited.url}/v1/agents`, { headers: auth('sk-other-wrong-0123456789') });
      expect(locked.status).toBe(429);
      expect(await locked.json()).toMatchObject({ error: { message: expect.stringContaining('too many failed authentication attempts from this address: 20 per 60s') } });
      expect(limited.logs.filter((l) => l.msg === 'authentication failed' && l.surface === 'platform')).toHaveLength(20);
    } finally {
      await limited.stop();
    }
  });
});
