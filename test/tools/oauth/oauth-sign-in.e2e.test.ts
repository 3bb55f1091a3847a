import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GATEWAY_TOKEN, eventually } from '../../helpers/start-herald.js';
import { testApp, type TestApp } from '../../http/app-fixture.js';
import { startOAuthMcpServer, type OAuthMcpServer } from '../../../bench/oauth-mcp-server.js';
import { publicFetch, signInAsBrowser } from './sign-in-browser.js';

/**
 * Signing in to a Streamable HTTP MCP server that asks for OAuth 2.1 (MCP Authorization,
 * 2025-11-25), against a real server made with the SDK's server auth (oauth-mcp-server.ts),
 * the person's browser following the authorization URL's redirects back to herald's callback.
 */
const PUBLIC = 'http://herald.test';
const KEY = 'test-encryption-key-0123456789abcdef';
const admin = { authorization: `Bearer ${GATEWAY_TOKEN}` };
const post = { method: 'POST', headers: admin };

let servers: OAuthMcpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function oauthServer(options: Parameters<typeof startOAuthMcpServer>[0] = {}): Promise<OAuthMcpServer> {
  const server = await startOAuthMcpServer(options);
  servers.push(server);
  return server;
}

const health = (herald: TestApp, server = 'crm') => herald.gateway.mcp.health().find((h) => h.server === server);
const stateOf = (herald: TestApp, server = 'crm') => health(herald, server)?.state;

async function call(herald: TestApp, tool: string, server = 'crm') {
  const spec = herald.gateway.mcp.tools().find((t) => t.name === `${server}__${tool}`)!;
  return herald.gateway.mcp.call(spec, {}, { timeoutMs: 10_000 });
}

async function authorize(herald: TestApp, server = 'crm'): Promise<string> {
  const response = await herald.request(`/admin/tools/servers/${server}/authorize`, post);
  expect(response.status).toBe(200);
  return ((await response.json()) as { authorizationUrl: string }).authorizationUrl;
}

async function signIn(herald: TestApp, server = 'crm', publicUrl = PUBLIC): Promise<void> {
  await eventually(() => stateOf(herald, server) === 'needs_authorization');
  const page = await signInAsBrowser(herald, publicUrl, await authorize(herald, server));
  expect(page.status).toBe(200);
  await eventually(() => stateOf(herald, server) === 'ready');
}

const config = (url: string, extra: Record<string, unknown> = {}, gateway: Record<string, unknown> = { publicUrl: PUBLIC }) => ({
  gateway,
  tools: { oauth: { encryptionKey: KEY }, mcpServers: { crm: { url, ...extra } } },
});

/** every secret of the run must be absent from everything herald logged */
function expectNoSecrets(texts: string[], secrets: string[]) {
  const all = texts.join('\n');
  for (const secret of secrets) expect(all.includes(secret), `a secret reached herald's output: ${secret.slice(0, 6)}…`).toBe(false);
}

describe('signing in to an MCP server (OAuth 2.1)', () => {
  it('waits for a person, signs in through the browser, connects, and keeps the sign-in over a restart', async () => {
    const server = await oauthServer();
    const herald = await testApp({ gateway: { publicUrl: PUBLIC }, tools: { oauth: { encryptionKey: KEY }, mcpServers: { crm: { url: server.url } } } });
    await eventually(() => stateOf(herald) === 'needs_authorization');
    // not a failure: no retries against it, and /readyz says what it waits for
    const ready = await herald.request('/readyz');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ degraded: { tools: { crm: 'needs_authorization' } } });
    const overview = (await (await herald.request('/admin/overview', { headers: admin })).json()) as { toolServers: { server: string; state: string }[] };
    expect(overview.toolServers).toContainEqual(expect.objectContaining({ server: 'crm', state: 'needs_authorization' }));
    const metrics = async () => (await herald.request('/metrics', { headers: admin })).text();
    expect(await metrics()).toMatch(/^herald_tool_server_needs_authorization\{server="crm"\} 1$/m);

    const authorizationUrl = await authorize(herald);
    const url = new URL(authorizationUrl);
    expect(url.origin + url.pathname).toBe(new URL('/authorize', server.url).href);
    // PKCE, the resource indicator (RFC 8707), herald's callback, a state
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('resource')).toBe(server.url);
    expect(url.searchParams.get('redirect_uri')).toBe(`${PUBLIC}/oauth/callback`);
    expect(url.searchParams.get('scope')).toBe('mcp:tools');
    const state = url.searchParams.get('state')!;
    expect(state.length).toBeGreaterThan(20);

    const page = await signInAsBrowser(herald, PUBLIC, authorizationUrl);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Signed in to crm');
    await eventually(() => stateOf(herald) === 'ready');
    expect(await metrics()).toMatch(/^herald_tool_server_needs_authorization\{server="crm"\} 0$/m);
    expect(await metrics()).toMatch(/^herald_tool_server_up\{server="crm"\} 1$/m);
    const who = await call(herald, 'whoami');
    expect(who.isError).toBeFalsy();
    expect(JSON.parse(who.text).scopes).toEqual(['mcp:tools']);
    // dynamic registration (no client in config, and an http publicUrl cannot be a client id)
    expect(server.tokenRequests.map((r) => r.grant)).toEqual(['authorization_code']);
    expect(server.tokenRequests[0]!.resource).toBe(server.url);

    // a state is used once
    const replay = await herald.request(`/oauth/callback?state=${state}&code=code-again`);
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain('used already');

    const restarted = await herald.restart();
    await eventually(() => stateOf(restarted) === 'ready');
    expect((await call(restarted, 'whoami')).isError).toBeFalsy();
    expect(server.authorizations).toHaveLength(1);
    expectNoSecrets([herald.rawLogs(), restarted.rawLogs(), JSON.stringify(overview)], [...server.issued, ...server.secrets]);
  }, 30_000);

  it('refreshes on a 401 once for all the calls in flight, stores the rotated refresh token, and uses it next time', async () => {
    const server = await oauthServer();
    const herald = await testApp(config(server.url));
    await signIn(herald);
    server.expireAccessTokens();
    const results = await Promise.all(Array.from({ length: 6 }, () => call(herald, 'whoami')));
    expect(results.every((r) => !r.isError)).toBe(true);
    expect(server.tokenRequests.filter((r) => r.grant === 'refresh_token')).toHaveLength(1);
    // the rotated one works: the refresh token spent above is never presented again
    server.expireAccessTokens();
    expect((await call(herald, 'whoami')).isError).toBeFalsy();
    expect(server.tokenRequests.filter((r) => r.grant === 'refresh_token')).toHaveLength(2);
    expect(server.spentRefreshes).toBe(0);
    expect(server.tokenRequests.every((r) => r.resource === server.url)).toBe(true);
    expectNoSecrets([herald.rawLogs()], server.issued);
  }, 30_000);

  it('renews a token in the last quarter of its life before the call, so the server refuses nothing', async () => {
    const server = await oauthServer({ expiresIn: 4 });
    const herald = await testApp(config(server.url));
    await signIn(herald);
    const refusals = server.refusals;
    const signedInAt = Date.now();
    // its life is 4 s: past 3 s it is renewed before a request goes out
    await eventually(() => Date.now() - signedInAt > 3_200, 10_000, 100);
    const who = await call(herald, 'whoami');
    expect(who.isError).toBeFalsy();
    expect(server.tokenRequests.filter((r) => r.grant === 'refresh_token').length).toBeGreaterThanOrEqual(1);
    expect(server.refusals).toBe(refusals);
  }, 30_000);

  it('registers itself once by dynamic client registration (no client in config, an http publicUrl), and keeps the client over a restart', async () => {
    // the server takes metadata documents too, but an http URL cannot be a client id
    const server = await oauthServer({ clientIdMetadataDocuments: true });
    const herald = await testApp(config(server.url));
    await signIn(herald);
    expect(server.registered).toEqual([
      expect.objectContaining({ client_name: 'herald', redirect_uris: [`${PUBLIC}/oauth/callback`], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'] }),
    ]);
    const clientId = server.registered[0]!.client_id;
    expect(server.authorizations.map((a) => a.clientId)).toEqual([clientId]);
    expect(server.documents).toEqual([]);
    // a sign-in again after a restart uses the client the store kept
    const restarted = await herald.restart();
    await eventually(() => stateOf(restarted) === 'ready');
    expect((await signInAsBrowser(restarted, PUBLIC, await authorize(restarted))).status).toBe(200);
    expect(server.registered).toHaveLength(1);
    expect(server.authorizations.map((a) => a.clientId)).toEqual([clientId, clientId]);
    expect(server.tokenRequests.map((r) => r.clientId)).toEqual([clientId, clientId]);
  }, 30_000);

  it('a refresh that fails puts the server into needs_authorization, and a new sign-in brings it back', async () => {
    const server = await oauthServer();
    const herald = await testApp(config(server.url));
    await signIn(herald);
    server.revokeRefreshTokens();
    server.expireAccessTokens();
    const failed = await call(herald, 'whoami');
    expect(failed.isError).toBe(true);
    expect(failed.text).toContain('waits for a person to sign in');
    await eventually(() => stateOf(herald) === 'needs_authorization');
    // no reconnect loop while it waits: the server sees no more token requests
    const requests = server.tokenRequests.length;
    expect(health(herald)!.lastError).toContain('sign in again');
    await signIn(herald);
    expect((await call(herald, 'whoami')).isError).toBeFalsy();
    expect(server.tokenRequests.length).toBe(requests + 1);
    expectNoSecrets([herald.rawLogs(), failed.text, health(herald)!.lastError ?? ''], [...server.issued, ...server.secrets]);
  }, 30_000);

  it('step-up: a 403 insufficient_scope asks a person to sign in again with the wider scope', async () => {
    const server = await oauthServer({ adminScope: 'crm:admin' });
    const herald = await testApp(config(server.url));
    await signIn(herald);
    const refused = await call(herald, 'admin_tool');
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('wider scope');
    await eventually(() => stateOf(herald) === 'needs_authorization');
    const url = new URL(await authorize(herald));
    expect(url.searchParams.get('scope')!.split(' ').sort()).toEqual(['crm:admin', 'mcp:tools']);
    await signInAsBrowser(herald, PUBLIC, url.href);
    await eventually(() => stateOf(herald) === 'ready');
    const done = await call(herald, 'admin_tool');
    expect(done.text).toBe('admin done');
  }, 30_000);

  it('finds the metadata at the well-known URLs when the 401 names none', async () => {
    const server = await oauthServer({ resourceMetadataInChallenge: false });
    const herald = await testApp(config(server.url));
    await signIn(herald);
    expect((await call(herald, 'whoami')).isError).toBeFalsy();
  }, 30_000);

  it("uses herald's client metadata document as its client id when the authorization server takes one (https publicUrl)", async () => {
    const publicUrl = 'https://herald.example.com';
    let herald!: TestApp;
    const server = await oauthServer({ clientIdMetadataDocuments: true, registration: false, documentFetch: publicFetch(() => herald, publicUrl) });
    herald = await testApp(config(server.url, {}, { publicUrl }));
    const doc = (await (await herald.request('/oauth/client-metadata.json')).json()) as Record<string, unknown>;
    expect(doc).toMatchObject({ client_id: `${publicUrl}/oauth/client-metadata.json`, redirect_uris: [`${publicUrl}/oauth/callback`], token_endpoint_auth_method: 'none' });
    await signIn(herald, 'crm', publicUrl);
    expect(server.documents).toContain(`${publicUrl}/oauth/client-metadata.json`);
    expect(server.authorizations[0]!.clientId).toBe(`${publicUrl}/oauth/client-metadata.json`);
  }, 30_000);

  for (const method of ['client_secret_basic', 'client_secret_post', 'none'] as const) {
    it(`a client from config, authenticating with ${method}`, async () => {
      const secret = method === 'none' ? undefined : `configured-secret-${method}`;
      const client = { client_id: `herald-${method}`, ...(secret && { client_secret: secret }), redirect_uris: [`${PUBLIC}/oauth/callback`], token_endpoint_auth_method: method };
      const server = await oauthServer({ clients: [client], authMethods: [method], registration: false });
      const herald = await testApp(config(server.url, { oauth: { clientId: client.client_id, ...(secret && { clientSecret: secret }) } }));
      await signIn(herald);
      const expected = { client_secret_basic: 'basic', client_secret_post: 'post', none: 'none' }[method];
      expect(server.tokenRequests.map((r) => [r.grant, r.auth, r.clientId])).toEqual([['authorization_code', expected, client.client_id]]);
      server.expireAccessTokens();
      expect((await call(herald, 'whoami')).isError).toBeFalsy();
      expect(server.tokenRequests.at(-1)).toMatchObject({ grant: 'refresh_token', auth: expected });
      const overview = await (await herald.request('/admin/overview', { headers: admin })).text();
      expectNoSecrets([herald.rawLogs(), overview], [...server.issued, ...(secret ? [secret] : [])]);
    }, 30_000);
  }

  it('client credentials with a secret: connected from config alone, no person', async () => {
    const secret = 'machine-secret-0123456789';
    const server = await oauthServer({ clients: [{ client_id: 'herald-m2m', client_secret: secret, redirect_uris: [] }], authMethods: ['client_secret_basic', 'client_secret_post'] });
    const herald = await testApp(config(server.url, { oauth: { grant: 'client_credentials', clientId: 'herald-m2m', clientSecret: secret, scope: 'mcp:tools' } }));
    await eventually(() => stateOf(herald) === 'ready');
    expect(server.tokenRequests.map((r) => [r.grant, r.auth, r.resource])).toEqual([['client_credentials', 'basic', server.url]]);
    server.expireAccessTokens();
    expect((await call(herald, 'whoami')).isError).toBeFalsy();
    expect(server.tokenRequests.filter((r) => r.grant === 'client_credentials')).toHaveLength(2);
    // nobody signs in to it
    expect((await herald.request('/admin/tools/servers/crm/authorize', post)).status).toBe(409);
    expectNoSecrets([herald.rawLogs()], [...server.issued, secret]);
  }, 30_000);

  it('client credentials with private_key_jwt: a key file signs the client assertion', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-jwt-'));
    const keyFile = path.join(dir, 'client.pem');
    fs.writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const server = await oauthServer({ clients: [{ client_id: 'herald-jwt', redirect_uris: [] }], authMethods: ['private_key_jwt'], jwtKeys: { 'herald-jwt': publicKey.export({ type: 'spki', format: 'pem' }).toString() } });
    const herald = await testApp(config(server.url, { oauth: { grant: 'client_credentials', clientId: 'herald-jwt', privateKeyFile: keyFile } }));
    await eventually(() => stateOf(herald) === 'ready');
    expect(server.tokenRequests.map((r) => [r.grant, r.auth])).toEqual([['client_credentials', 'jwt']]);
    expect((await call(herald, 'whoami')).isError).toBeFalsy();
  }, 30_000);
});
