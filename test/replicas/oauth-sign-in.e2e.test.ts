import { afterEach, describe, expect, it } from 'vitest';
import { dropSchema, requirePostgres, testPgUrl, uniqueSchema } from '../helpers/postgres.js';
import { GATEWAY_TOKEN, eventually } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';
import { startOAuthMcpServer, type OAuthMcpServer } from '../../bench/oauth-mcp-server.js';
import { signInAsBrowser } from '../tools/oauth/sign-in-browser.js';

/**
 * Two heralds on one PostgreSQL schema (replicas behind a load balancer) share one sign-in to an
 * MCP server that asks for OAuth (the SDK's server auth, oauth-mcp-server.ts): a person signs in
 * through replica A, replica B calls the server's tools with the tokens A stored; once the access
 * token has expired, calls on both at once refresh it once between them (the demo server rotates
 * refresh tokens: a second refresh with the spent one would be refused and counted). A sign-in
 * started on one replica may come back through the other.
 */
const PUBLIC = 'http://herald.test';
const KEY = 'replicas-share-this-key-0123456789';
let server: OAuthMcpServer | undefined;
let schema: string | undefined;
afterEach(async () => {
  await server?.close();
  if (schema) await dropSchema(schema);
  server = schema = undefined;
});

const stateOf = (herald: TestApp) => herald.gateway.mcp.health().find((h) => h.server === 'crm')?.state;
const call = (herald: TestApp) => herald.gateway.mcp.call(herald.gateway.mcp.tools().find((t) => t.name === 'crm__whoami')!, {}, { timeoutMs: 20_000 });

describe('one sign-in shared by two replicas on PostgreSQL', { timeout: 120_000 }, () => {
  it('a sign-in through replica A serves replica B, a refresh is done once between them, and a sign-in started on B may come back through A', async () => {
    await requirePostgres();
    server = await startOAuthMcpServer();
    schema = uniqueSchema('herald_oauth');
    const config = {
      gateway: { publicUrl: PUBLIC },
      storage: { postgres: { url: testPgUrl(), schema, poolSize: 4 } },
      tools: { oauth: { encryptionKey: KEY }, mcpServers: { crm: { url: server.url } } },
    };
    // one after the other: the first migrates the schema
    const a = await testApp(config);
    const b = await testApp(config);
    await eventually(() => stateOf(a) === 'needs_authorization' && stateOf(b) === 'needs_authorization', 30_000);

    const started = await a.request('/admin/tools/servers/crm/authorize', { method: 'POST', headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
    expect(started.status).toBe(200);
    const { authorizationUrl } = (await started.json()) as { authorizationUrl: string };
    expect((await signInAsBrowser(a, PUBLIC, authorizationUrl)).status).toBe(200);
    await eventually(() => stateOf(a) === 'ready', 30_000);
    // B waited for a person too: it finds the sign-in in the store and connects with it
    await eventually(() => stateOf(b) === 'ready', 30_000);
    expect((await call(b)).isError).toBeFalsy();
    expect(server.authorizations).toHaveLength(1);
    expect(server.tokenRequests.map((r) => r.grant)).toEqual(['authorization_code']);

    // expired: calls on both replicas at once; one of them refreshes, the other takes its tokens
    server.expireAccessTokens();
    const results = await Promise.all([call(a), call(b), call(a), call(b), call(a), call(b)]);
    expect(results.map((r) => r.isError ?? false)).toEqual([false, false, false, false, false, false]);
    expect(server.tokenRequests.filter((r) => r.grant === 'refresh_token')).toHaveLength(1);
    expect(server.spentRefreshes).toBe(0);
    // and the rotated refresh token is the one both use next
    server.expireAccessTokens();
    expect((await call(b)).isError).toBeFalsy();
    expect((await call(a)).isError).toBeFalsy();
    expect(server.tokenRequests.filter((r) => r.grant === 'refresh_token')).toHaveLength(2);
    expect(server.spentRefreshes).toBe(0);

    // a sign-in started on B whose browser comes back through A (the load balancer's choice): the pending sign-in is in the store
    const again = await b.request('/admin/tools/servers/crm/authorize', { method: 'POST', headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
    const page = await signInAsBrowser(a, PUBLIC, ((await again.json()) as { authorizationUrl: string }).authorizationUrl);
    expect(page.status).toBe(200);
    expect(server.authorizations).toHaveLength(2);
    expect(server.tokenRequests.filter((r) => r.grant === 'authorization_code')).toHaveLength(2);
    expect((await call(b)).isError).toBeFalsy();
    expect((await call(a)).isError).toBeFalsy();
    for (const herald of [a, b]) for (const token of server.issued) expect(herald.rawLogs().includes(token)).toBe(false);
  });
});
