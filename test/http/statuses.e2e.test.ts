import { afterEach, describe, expect, it } from 'vitest';
import { baseConfig, GATEWAY_TOKEN, HOOK_TOKEN, hookHeaders, startHerald, type RunningHerald } from '../helpers/start-herald.js';
import { chunk, rawRequest } from './raw-socket.js';

let herald: RunningHerald | undefined;
afterEach(async () => {
  await herald?.stop();
  herald = undefined;
});

const post = (h: RunningHerald, path: string, body: string, headers: Record<string, string> = hookHeaders()) =>
  fetch(`${h.url}${path}`, { method: 'POST', headers, body });

/** status, body and the request id of a response, for one-line assertions */
async function answer(res: Response) {
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, requestId: res.headers.get('x-request-id') };
}

// every webhook status of the contract, over a real socket, each answer with an X-Request-Id
describe('webhook statuses end to end (real server)', () => {
  it('200, 202, 400, 404 and 405, with the webhook error shape', async () => {
    herald = await startHerald(baseConfig({ agents: { defaults: { models: ['embedded/extractive'] } } }));
    const h = herald;
    const cases: [Promise<Response>, number, Record<string, unknown>][] = [
      [post(h, '/hooks/wake', '{"text":"Deploy finished"}'), 200, { ok: true, mode: 'now' }],
      [post(h, '/hooks/wake', '{"text":"later","mode":"next-heartbeat"}'), 200, { ok: true, mode: 'next-heartbeat' }],
      [post(h, '/hooks/agent', '{"message":"Summarise","deliver":false}'), 202, { ok: true, runId: expect.any(String) }],
      [post(h, '/hooks/wake', '{"text": '), 400, { ok: false, error: 'invalid JSON body' }],
      [post(h, '/hooks/agent', '[1,2]'), 400, { ok: false, error: expect.stringContaining('object') }],
      [post(h, '/hooks/wake', '{"text":"  "}'), 400, { ok: false, error: expect.stringMatching(/^text /) }],
      [post(h, '/hooks/agent', '{"message":"m","deliver":"yes"}'), 400, { ok: false, error: expect.stringMatching(/^deliver /) }],
      [post(h, '/hooks/agent', '{"message":"m","model":"embedded/other"}'), 400, { ok: false, error: expect.stringContaining('agents.defaults.models') }],
      [post(h, '/hooks/agent', '{"message":"m","model":"__proto__"}'), 400, { ok: false, error: expect.stringMatching(/^model /) }],
      [post(h, '/hooks/nothing-mapped', '{}'), 404, { ok: false, error: expect.any(String) }],
      [fetch(`${h.url}/hooks/wake`), 405, { ok: false, error: 'method not allowed' }],
    ];
    for (const [pending, status, body] of cases) {
      const res = await pending;
      const got = await answer(res);
      expect(got, JSON.stringify(got.body)).toMatchObject({ status, body, requestId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
      if (status === 405) expect(res.headers.get('allow')).toBe('POST');
    }
  });

  it('401 for a missing or wrong token, then 429 with Retry-After after 20 failures in 60 s, even for the right token', async () => {
    herald = await startHerald();
    expect(await answer(await post(herald, '/hooks/wake', '{"text":"a"}', { 'content-type': 'application/json' }))).toMatchObject({
      status: 401,
      body: { ok: false, error: 'unauthorized' },
    });
    for (let i = 1; i < 20; i++) {
      expect((await post(herald, '/hooks/wake', '{"text":"a"}', hookHeaders(`wrong-token-${i}`))).status).toBe(401);
    }
    const limited = await post(herald, '/hooks/wake', '{"text":"a"}', hookHeaders(HOOK_TOKEN));
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(await limited.json()).toMatchObject({ ok: false });
    // nothing of the refused requests reached the store
    expect(await herald.gateway.store.events.list('main', 10)).toHaveLength(0);
    // the admin API counts its own failures: the operator is not locked out by a broken sender
    const admin = await fetch(`${herald.url}/admin/events`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
    expect(admin.status).toBe(200);
  });

  it('413 for a declared or streamed body over hooks.maxBodyBytes, 408 for a stalled one', async () => {
    herald = await startHerald(baseConfig({ hooks: { maxBodyBytes: 200, bodyTimeoutMs: 300 } }));
    const big = await post(herald, '/hooks/wake', JSON.stringify({ text: 'x'.repeat(500) }));
    expect(await answer(big)).toMatchObject({ status: 413, body: { ok: false, error: 'payload too large' } });
    const head = `POST /hooks/wake HTTP/1.1\nHost: 127.0.0.1\nAuthorization: Bearer ${HOOK_TOKEN}\nContent-Type: application/json\n`;
    const streamed = await rawRequest(herald.url, `${head}Transfer-Encoding: chunked`, [chunk('{"text":"'), chunk('y'.repeat(300)), chunk('"}'), '0\r\n\r\n']);
    expect(streamed.status).toBe(413);
    const stalled = await rawRequest(herald.url, `${head}Content-Length: 50`, ['{"text":"hel']);
    expect(stalled.status).toBe(408);
    expect(stalled.headers['x-request-id']).toBeTruthy();
    expect(await herald.gateway.store.events.list('main', 10)).toHaveLength(0);
  });
});
