import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { TrustedProxies } from '../../src/http/request/trusted-proxies.js';
import { API_KEY, GATEWAY_TOKEN, HOOK_TOKEN, baseConfig, hookHeaders, startHerald, type RunningHerald } from '../helpers/start-herald.js';

const GITHUB_SECRET = 'gh-secret-for-limiter-tests-0123';
const STRIPE_SECRET = 'whsec_stripeLimiterSecret0123456789';
let herald: RunningHerald | undefined;
afterEach(async () => {
  await herald?.stop();
  herald = undefined;
});

const wake = (headers: Record<string, string>) => fetch(`${herald!.url}/hooks/wake`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{"text":"hi"}' });
const githubPost = (path: string, body: string, secret: string) =>
  fetch(`${herald!.url}/hooks/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}` },
    body,
  });
const signed = (id: string, path: string) => ({ id, match: { path }, action: 'wake', textTemplate: `${id} event`, auth: { type: 'github', secret: GITHUB_SECRET } });

describe('failed-auth limits', () => {
  it('twenty wrong hook tokens make that address\'s wrong tokens 429 on /hooks only: /admin, /metrics and /v1 still answer', async () => {
    herald = await startHerald(baseConfig());
    for (let i = 0; i < 20; i++) expect((await wake({ authorization: 'Bearer wrong-token-0123456789' })).status).toBe(401);
    const locked = await wake({ authorization: 'Bearer wrong-token-0123456789' });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await locked.json()) as { error: string }).error).toContain('20 per 60s');
    const gateway = { authorization: `Bearer ${GATEWAY_TOKEN}` };
    expect((await fetch(`${herald.url}/admin/events`, { headers: gateway })).status).toBe(200);
    expect((await fetch(`${herald.url}/metrics`, { headers: gateway })).status).toBe(200);
    expect((await fetch(`${herald.url}/v1/agents`, { headers: { authorization: `Bearer ${API_KEY}` } })).status).toBe(200);
    // and the other way round: a limited operator surface leaves hooks alone
    for (let i = 0; i < 20; i++) expect((await fetch(`${herald.url}/admin/events`, { headers: { authorization: 'Bearer nope' } })).status).toBe(401);
    expect((await fetch(`${herald.url}/metrics`, { headers: { authorization: 'Bearer nope' } })).status).toBe(429);
    expect((await fetch(`${herald.url}/v1/agents`, { headers: { authorization: `Bearer ${API_KEY}` } })).status).toBe(200);
  });

  it('a valid credential is admitted while its address is limited, and clears its failures: hook token, signature, API key, gateway token', async () => {
    herald = await startHerald(baseConfig({ hooks: { mappings: [signed('gh', 'gh')] } }));
    const body = '{"action":"opened"}';
    const cases: { name: string; wrong: () => Promise<Response>; right: () => Promise<Response> }[] = [
      { name: 'hook token', wrong: () => wake({ authorization: 'Bearer wrong-token-0123456789' }), right: () => wake(hookHeaders()) },
      { name: 'signature', wrong: () => githubPost('gh', body, 'not-the-secret-0123456789'), right: () => githubPost('gh', body, GITHUB_SECRET) },
      {
        name: 'API key',
        wrong: () => fetch(`${herald!.url}/v1/agents`, { headers: { authorization: 'Bearer sk-herald-not-a-key' } }),
        right: () => fetch(`${herald!.url}/v1/agents`, { headers: { authorization: `Bearer ${API_KEY}` } }),
      },
      {
        name: 'gateway token',
        wrong: () => fetch(`${herald!.url}/admin/events`, { headers: { authorization: 'Bearer nope' } }),
        right: () => fetch(`${herald!.url}/admin/events`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } }),
      },
    ];
    for (const { name, wrong, right } of cases) {
      for (let i = 0; i < 20; i++) expect((await wrong()).status, name).toBe(401);
      expect((await wrong()).status, name).toBe(429);
      expect((await right()).status, name).toBe(200);
      // the valid credential cleared the address's failures: a wrong one is counted afresh
      expect((await wrong()).status, name).toBe(401);
    }
  });

  it('counts per forwarded client behind a trusted proxy, and ignores X-Forwarded-For from anyone else', async () => {
    herald = await startHerald(baseConfig({ gateway: { trustedProxies: ['127.0.0.0/8'] } }));
    for (let i = 0; i < 20; i++) expect((await wake({ authorization: 'Bearer wrong-token-0123456789', 'x-forwarded-for': '198.51.100.7' })).status).toBe(401);
    const wrongFrom = (xff: Record<string, string>) => wake({ authorization: 'Bearer wrong-token-0123456789', ...xff });
    expect((await wrongFrom({ 'x-forwarded-for': '198.51.100.7' })).status).toBe(429);
    // another client behind the same proxy is not limited; neither is one the client pretends to be on the left
    expect((await wrongFrom({ 'x-forwarded-for': '198.51.100.8' })).status).toBe(401);
    expect((await wrongFrom({ 'x-forwarded-for': '198.51.100.8, 198.51.100.7' })).status).toBe(429);
    expect((await wrongFrom({ forwarded: 'for=198.51.100.9;proto=https' })).status).toBe(401);
    await herald.stop();

    herald = await startHerald(baseConfig());
    for (let i = 0; i < 20; i++) expect((await wake({ authorization: 'Bearer wrong-token-0123456789', 'x-forwarded-for': '198.51.100.7' })).status).toBe(401);
    // untrusted peer: the header is the client's own word, so the socket address is limited whatever it says
    expect((await wake({ authorization: 'Bearer wrong-token-0123456789', 'x-forwarded-for': '198.51.100.8' })).status).toBe(429);
  });

  it('counts bad signatures per mapped path, and logs why auth failed without secrets', async () => {
    herald = await startHerald(
      baseConfig({
        hooks: {
          mappings: [
            signed('gh', 'gh'),
            signed('gh2', 'gh2'),
            { id: 'pay', match: { path: 'pay' }, action: 'wake', textTemplate: 'paid', auth: { type: 'stripe', secret: STRIPE_SECRET } },
          ],
        },
      }),
    );
    const body = '{"action":"opened"}';
    for (let i = 0; i < 20; i++) expect((await githubPost('gh', body, 'not-the-secret-0123456789')).status).toBe(401);
    expect((await githubPost('gh', body, 'not-the-secret-0123456789')).status).toBe(429);
    expect((await githubPost('gh2', body, 'not-the-secret-0123456789')).status).toBe(401);
    expect((await wake(hookHeaders())).status).toBe(200);

    const stale = Math.floor(Date.now() / 1000) - 3600;
    const staleSig = createHmac('sha256', STRIPE_SECRET).update(`${stale}.${body}`).digest('hex');
    const payStale = await fetch(`${herald.url}/hooks/pay`, { method: 'POST', headers: { 'stripe-signature': `t=${stale},v1=${staleSig}` }, body });
    expect(payStale.status).toBe(401);
    expect((await fetch(`${herald.url}/hooks/pay`, { method: 'POST', body })).status).toBe(401);
    expect((await wake({})).status).toBe(401);
    expect((await wake({ 'x-gateway-token': 'a-wrong-gateway-token-value' })).status).toBe(401);

    const failures = herald.logs.filter((l) => l.msg === 'authentication failed');
    const reasons = new Set(failures.map((l) => `${l.surface}:${l.reason}`));
    for (const r of ['hooks:bad signature', 'hooks:stale timestamp', 'hooks:missing signature', 'hooks:missing token', 'hooks:wrong token']) expect(reasons).toContain(r);
    expect(failures.find((l) => l.reason === 'bad signature')).toMatchObject({ hookPath: 'gh', address: '127.0.0.1' });
    const raw = herald.rawLogs();
    for (const secret of [GITHUB_SECRET, STRIPE_SECRET, HOOK_TOKEN, 'not-the-secret', staleSig, 'a-wrong-gateway-token-value', 'wrong-token-0123456789']) expect(raw).not.toContain(secret);
  });
});

describe('TrustedProxies', () => {
  const proxies = new TrustedProxies(['10.0.0.0/8', '::1', 'fd00::/8']);
  it('takes the rightmost address no trusted proxy vouches for', () => {
    expect(proxies.clientAddress('10.1.2.3', { xForwardedFor: '1.1.1.1, 2.2.2.2, 10.9.9.9' })).toBe('2.2.2.2');
    expect(proxies.clientAddress('::ffff:10.1.2.3', { xForwardedFor: '2.2.2.2' })).toBe('2.2.2.2');
    expect(proxies.clientAddress('::1', { forwarded: 'for="[2001:db8::17]:4711", for=10.0.0.5;proto=https' })).toBe('2001:db8::17');
    expect(proxies.clientAddress('10.1.2.3', { forwarded: 'for=192.0.2.60:8080;by=10.0.0.1', xForwardedFor: '3.3.3.3' })).toBe('192.0.2.60');
  });
  it('ignores the headers from an untrusted peer and stops at junk', () => {
    expect(proxies.clientAddress('203.0.113.5', { xForwardedFor: '1.1.1.1' })).toBe('203.0.113.5');
    expect(proxies.clientAddress('10.1.2.3', { xForwardedFor: 'unknown' })).toBe('10.1.2.3');
    expect(proxies.clientAddress('10.1.2.3', { xForwardedFor: 'junk, 4.4.4.4' })).toBe('4.4.4.4');
    expect(proxies.clientAddress('10.1.2.3', {})).toBe('10.1.2.3');
  });
});
