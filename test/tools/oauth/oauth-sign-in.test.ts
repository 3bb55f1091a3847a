import { afterEach, describe, expect, it } from 'vitest';
import { GATEWAY_TOKEN, eventually } from '../../helpers/start-herald.js';
import { testApp, type TestApp } from '../../http/app-fixture.js';
import { startOAuthMcpServer, type OAuthMcpServer } from './oauth-mcp-server.js';
import { signInAsBrowser } from './sign-in-browser.js';

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
});
