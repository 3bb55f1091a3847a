import { describe, expect, it } from 'vitest';
import { GATEWAY_TOKEN } from '../../helpers/start-herald.js';
import { testApp, type TestApp } from '../app-fixture.js';

/** signs in as the console does: the session cookie (as the browser would send it back) and the CSRF token */
async function signIn(app: TestApp): Promise<{ cookie: string; csrf: string }> {
  const res = await app.request('/console/session', { method: 'POST', headers: { 'content-type': 'application/json', origin: 'http://localhost' }, body: JSON.stringify({ token: GATEWAY_TOKEN }) });
  expect(res.status).toBe(200);
  const setCookie = res.headers.get('set-cookie')!;
  expect(setCookie).toMatch(/HttpOnly/i);
  expect(setCookie).toMatch(/SameSite=Strict/i);
  const { csrf } = (await res.json()) as { csrf: string };
  return { cookie: setCookie.split(';')[0]!, csrf };
}

describe('the console session on the admin API', () => {
  it('refuses every state-changing admin route without the CSRF token, whatever the route', async () => {
    const app = await testApp();
    const { cookie, csrf } = await signIn(app);
    const doc = (await (await app.request('/admin/openapi.json', { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).json()) as { paths: Record<string, Record<string, unknown>> };
    const actions = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops)
        .filter((m) => !['get', 'head', 'options'].includes(m))
        .map((m) => [m.toUpperCase(), path.replace(/\{[^}]+\}/g, 'nope')] as const),
    );
    expect(actions.length).toBeGreaterThanOrEqual(10);
    for (const [method, path] of actions) {
      // POST /admin/reload (herald reload) takes the Bearer only: a cookie is never enough there (401)
      const expected = path === '/admin/reload' ? 401 : 403;
      const refused = await app.request(path, { method, headers: { cookie, 'content-type': 'application/json' }, body: method === 'DELETE' ? undefined : '{}' });
      expect(refused.status, `${method} ${path} without the CSRF token`).toBe(expected);
      const forged = await app.request(path, { method, headers: { cookie, 'x-csrf-token': `${csrf.slice(0, -2)}xx`, 'content-type': 'application/json' }, body: method === 'DELETE' ? undefined : '{}' });
      expect(forged.status, `${method} ${path} with a wrong CSRF token`).toBe(expected);
    }
    // with its token the same cookie gets past the check (here: to the route's own answer about the unknown id)
    const retried = await app.request('/admin/deliveries/nope/retry', { method: 'POST', headers: { cookie, 'x-csrf-token': csrf } });
    expect(retried.status).toBe(404);
    // reading needs no CSRF token
    expect((await app.request('/admin/runs', { headers: { cookie } })).status).toBe(200);
  });

  it('forgets a signed-out session: its cookie, replayed, is refused', async () => {
    const app = await testApp();
    // asked without a session, the console's page is told so in a 200 (a browser logs every 401 it fetches)
    expect(await (await app.request('/console/session')).json()).toEqual({ ok: true, signedIn: false });
    const { cookie, csrf } = await signIn(app);
    expect(await (await app.request('/console/session', { headers: { cookie } })).json()).toMatchObject({ ok: true, signedIn: true, csrf });
    // signing out is an action too: not without the CSRF token
    expect((await app.request('/console/session', { method: 'DELETE', headers: { cookie } })).status).toBe(403);
    expect((await app.request('/console/session', { method: 'DELETE', headers: { cookie, 'x-csrf-token': csrf } })).status).toBe(200);
    expect((await app.request('/admin/runs', { headers: { cookie } })).status).toBe(401);
    expect((await app.request('/admin/stream', { headers: { cookie } })).status).toBe(401);
    expect(await (await app.request('/console/session', { headers: { cookie } })).json()).toEqual({ ok: true, signedIn: false });
  });

  it('serves the console with a strict Content-Security-Policy and no secret in the page', async () => {
    const app = await testApp();
    const res = await app.request('/console');
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy')!;
    for (const directive of ["default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"]) expect(csp).toContain(directive);
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    const html = await res.text();
    expect(html).not.toMatch(/<script(?![^>]*src=)/); // no inline script
    expect(html).not.toContain('style=');
    expect(html).not.toContain(GATEWAY_TOKEN);
    // a sign-in from another origin is refused
    const cross = await app.request('/console/session', { method: 'POST', headers: { 'content-type': 'application/json', origin: 'https://evil.example' }, body: JSON.stringify({ token: GATEWAY_TOKEN }) });
    expect(cross.status).toBe(403);
  });

  it('leads a browser at the gateway address to the console; without the console, / is a 404', async () => {
    const res = await (await testApp()).request('/');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/console');
    const without = await (await testApp({ gateway: { console: { enabled: false } } })).request('/');
    expect(without.status).toBe(404);
  });
});
