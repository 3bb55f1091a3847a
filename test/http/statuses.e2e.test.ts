import { afterEach, describe, expect, it } from 'vitest';
import { GATEWAY_TOKEN, HOOK_TOKEN, hookHeaders } from '../helpers/start-herald.js';
import { testApp, type TestApp } from './app-fixture.js';

let herald: TestApp | undefined;
afterEach(async () => {
  await herald?.stop();
  herald = undefined;
});

const post = (h: TestApp, path: string, body: string, headers: Record<string, string> = hookHeaders()) =>
  h.request(`${path}`, { method: 'POST', headers, body });

/** status, body and the request id of a response, for one-line assertions */
async function answer(res: Response) {
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, requestId: res.headers.get('x-request-id') };
}

// every webhook status of the contract through the real gateway, each answer with an X-Request-Id;
// bodies streamed or stalled on a socket are in body-limits.e2e.test.ts
describe('webhook statuses end to end', () => {
  it('200, 202, 400, 404 and 405, with the webhook error shape', async () => {
    herald = await testApp({ agents: { defaults: { models: ['embedded/extractive'] } } });
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
      [h.request(`/hooks/wake`), 405, { ok: false, error: 'method not allowed' }],
    ];
    for (const [pending, status, body] of cases) {
      const res = await pending;
      const got = await answer(res);
      expect(got, JSON.stringify(got.body)).toMatchObject({ status, body, requestId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
      if (status === 405) expect(res.headers.get('allow')).toBe('POST');
    }
  });

  it('401 for a missing or wrong token, then 429 with Retry-After for wrong tokens after 20 failures in 60 s', async () => {
    herald = await testApp();
    expect(await answer(await post(herald, '/hooks/wake', '{"text":"a"}', { 'content-type': 'application/json' }))).toMatchObject({
      status: 401,
      body: { ok: false, error: 'unauthorized' },
    });
    for (let i = 1; i < 20; i++) {
      expect((await post(herald, '/hooks/wake', '{"text":"a"}', hookHeaders(`wrong-token-${i}`))).status).toBe(401);
    }
    const limited = await post(herald, '/hooks/wake', '{"text":"a"}', hookHeaders('wrong-token-20'));
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(await limited.json()).toMatchObject({ ok: false });
    // nothing of the refused requests reached the store
    expect(await herald.gateway.store.events.list('main', 10)).toHaveLength(0);
    // the admin API counts its own failures: the operator is not locked out by a broken sender
    const admin = await herald.request(`/admin/events`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
    expect(admin.status).toBe(200);
  });

  it('413 for a body over hooks.maxBodyBytes, and nothing of it reaches the store', async () => {
    herald = await testApp({ hooks: { maxBodyBytes: 200 } });
    const big = await post(herald, '/hooks/wake', JSON.stringify({ text: 'x'.repeat(500) }));
    expect(await answer(big)).toMatchObject({ status: 413, body: { ok: false, error: 'the body is larger than hooks.maxBodyBytes (200 bytes)' } });
    expect(await herald.gateway.store.events.list('main', 10)).toHaveLength(0);
  });
});
