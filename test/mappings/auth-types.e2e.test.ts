import { afterEach, describe, expect, it } from 'vitest';
import { HOOK_TOKEN, baseConfig } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';

/**
 * The auth types whose credential is a header (basic, shared-secret) through the real hook route:
 * a Basic Authorization is judged by the path's basic auth (never taken for a wrong hook token),
 * the hook token still opens the path, and a config that does not fit a type is refused at start
 * naming the mapping and the field.
 */
let herald: TestApp | undefined;
afterEach(async () => {
  await herald?.stop();
  herald = undefined;
});

const PASSWORD = 'zendesk-basic-password-0123';
const CF_SECRET = 'cloudflare-webhook-secret-0123';
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

async function start(): Promise<TestApp> {
  herald = await testApp({
    hooks: {
      mappingsDir: './no-mappings',
      mappings: [
        { id: 'tickets', match: { path: 'tickets' }, auth: { type: 'basic', username: 'zendesk', secret: PASSWORD }, action: 'wake', textTemplate: 'Ticket {{ id }}' },
        { id: 'cloudflare', match: { path: 'cloudflare' }, auth: { type: 'shared-secret', header: 'cf-webhook-auth', secret: CF_SECRET }, action: 'wake', textTemplate: 'Cloudflare {{ name }}' },
      ],
    },
  });
  return herald;
}

const post = (h: TestApp, path: string, headers: Record<string, string>, body: unknown = { id: 7, name: 'ssl' }) =>
  h.request(`/hooks/${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

describe('basic auth on a mapped path', () => {
  it('takes the right user and password, refuses a wrong one or a wrong user with 401, still takes the hook token', async () => {
    const h = await start();
    expect((await post(h, 'tickets', { authorization: basic('zendesk', PASSWORD) })).status).toBe(200);
    expect((await post(h, 'tickets', { authorization: basic('zendesk', 'wrong') })).status).toBe(401);
    expect((await post(h, 'tickets', { authorization: basic('someone', PASSWORD) })).status).toBe(401);
    expect((await post(h, 'tickets', {})).status).toBe(401);
    expect((await post(h, 'tickets', { authorization: `Bearer ${HOOK_TOKEN}` })).status).toBe(200);
    // a Basic header where no basic auth is declared is a wrong hook token
    expect((await post(h, 'cloudflare', { authorization: basic('zendesk', PASSWORD) })).status).toBe(401);
    expect(h.rawLogs()).not.toContain(PASSWORD);
  });
});

describe('shared-secret on a mapped path', () => {
  it("takes Cloudflare's cf-webhook-auth equal to the secret, refuses another", async () => {
    const h = await start();
    expect((await post(h, 'cloudflare', { 'cf-webhook-auth': CF_SECRET })).status).toBe(200);
    expect((await post(h, 'cloudflare', { 'cf-webhook-auth': 'nope' })).status).toBe(401);
    expect((await post(h, 'cloudflare', {})).status).toBe(401);
    expect(h.rawLogs()).not.toContain(CF_SECRET);
  });
});

describe('auth faults at start', () => {
  it('name the mapping and the field', async () => {
    const { loadConfigValue } = await import('../helpers/builtins.js');
    const { resolveMappings } = await import('../../src/mappings/loading/resolve-mappings.js');
    const loaded = await loadConfigValue(
      baseConfig({
        hooks: {
          mappingsDir: '/nonexistent',
          mappings: [
            { id: 'a', match: { path: 'a' }, auth: { type: 'hmac-sha1', secret: 's' }, action: 'wake', textTemplate: 'x' },
            { id: 'b', match: { path: 'b' }, auth: { type: 'ed25519' }, action: 'wake', textTemplate: 'x' },
            { id: 'c', match: { path: 'c' }, auth: { type: 'zoom', secret: 's', username: 'u' }, action: 'wake', textTemplate: 'x' },
          ],
        },
      }),
      '/tmp/herald.auth-types.json',
    );
    const error = await resolveMappings(loaded, { config: loaded.config, channelNames: loaded.plugins.channelNames() }).then(
      () => undefined,
      (e: { faults: string[] }) => e,
    );
    expect(error?.faults).toEqual([
      'mapping "a" (hooks.mappings[0]): auth.header: hmac-sha1 needs the header that carries the digest',
      `mapping "b" (hooks.mappings[1]): auth.publicKey: ed25519 needs the sender's public key (hex), e.g. the Discord application's Public Key`,
      'mapping "c" (hooks.mappings[2]): auth.username: only for type basic (not zoom)',
    ]);
  });
});
