import { createHash } from 'node:crypto';
import { auth, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { afterEach, describe, expect, it } from 'vitest';
import { API_KEY, baseConfig, GATEWAY_TOKEN, startHerald, type RunningHerald } from '../helpers/start-herald.js';
import { startTicketServer, type TicketServer } from '../tools/ticket-server.js';
import { connectorClient, connectorTransport, consentAsBrowser, ConnectorAuth } from './oauth-client.js';

/** a connector registered as a confidential client (client_secret_post): the SDK's registration gives it a secret */
class ConfidentialAuth extends ConnectorAuth {
  override get clientMetadata() {
    return { ...super.clientMetadata, token_endpoint_auth_method: 'client_secret_post' };
  }
}

/**
 * herald's own OAuth authorization server for /mcp (platform.mcp.oauth), as ChatGPT's and
 * Claude's connectors use it: the SDK's Client with its client auth (an OAuthClientProvider)
 * discovers herald from the 401, registers itself, sends a person to the console's consent page,
 * gets tokens bound to /mcp, calls a governed tool with the key's grants, refreshes, and is
 * refused once a person revokes its grant. The real gateway on a socket, a real MCP server upstream.
 */
const REDIRECT = 'http://127.0.0.1:9/callback';
let tickets: TicketServer | undefined;
let herald: RunningHerald | undefined;
afterEach(async () => {
  await herald?.stop();
  await tickets?.close();
  herald = tickets = undefined;
});

async function start(oauth = true): Promise<RunningHerald> {
  tickets = await startTicketServer();
  herald = await startHerald(
    baseConfig({
      platform: {
        mcp: { enabled: true, oauth: { enabled: oauth } },
        apiKeys: [
          { name: 'support-desk', key: API_KEY, agents: ['main'], tools: { servers: ['tickets'], allow: ['tickets__lookup_ticket'] } },
          { name: 'other', key: 'sk-other-0123456789abcdef0123', agents: ['main'] },
        ],
      },
      tools: { mcpServers: { tickets: { url: tickets.url } } },
    }),
  );
  return herald;
}

const admin = (h: RunningHerald, path: string, init: RequestInit = {}) => fetch(`${h.url}/admin${path}`, { ...init, headers: { authorization: `Bearer ${GATEWAY_TOKEN}`, ...init.headers } });

describe("herald's OAuth for MCP connectors", { timeout: 60_000 }, () => {
  it('registration, a person\'s consent on the console, a governed call with the key\'s grants, refresh, revocation → 401', async () => {
    const h = await start();
    const connector = new ConnectorAuth(REDIRECT, 'Claude');
    // the first connect meets 401, discovers herald's metadata, registers, and sends the person to authorize
    await expect(connectorClient().connect(connectorTransport(h.url, connector))).rejects.toThrow(UnauthorizedError);
    expect(connector.client?.client_id).toMatch(/^[0-9a-f-]{36}$/);
    const authorizeUrl = connector.opened[0]!;
    expect(authorizeUrl.origin + authorizeUrl.pathname).toBe(`${h.url}/authorize`);
    expect(authorizeUrl.searchParams.get('resource')).toBe(`${h.url}/mcp`);

    const { client, redirectTo } = await consentAsBrowser(h.url, authorizeUrl, { decision: 'allow', key: 'support-desk' });
    expect(client.name).toBe('Claude');
    expect(redirectTo.origin + redirectTo.pathname).toBe(REDIRECT);
    expect(redirectTo.searchParams.get('state')).toBe(authorizeUrl.searchParams.get('state'));
    const code = redirectTo.searchParams.get('code')!;

    const transport = connectorTransport(h.url, connector);
    await transport.finishAuth(code);
    expect(connector.saved).toMatchObject({ token_type: 'Bearer', expires_in: 3600, refresh_token: expect.stringMatching(/^hmcp_rt_/) });
    // a code is used once
    const again = await fetch(`${h.url}/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: connector.codeVerifier(), client_id: connector.client!.client_id, redirect_uri: REDIRECT }) });
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ error: 'invalid_grant' });

    const mcp = connectorClient();
    await mcp.connect(transport);
    // the key's grants: its agent and its one allowed tool
    expect((await mcp.listTools()).tools.map((t) => t.name).sort()).toEqual(['ask_main', 'search_documents', 'tickets__lookup_ticket']);
    expect(await mcp.callTool({ name: 'tickets__lookup_ticket', arguments: { id: '7' } })).toMatchObject({ content: [{ text: 'ticket 7 is open' }], isError: false });
    expect(tickets!.invocations).toEqual([{ tool: 'lookup_ticket', id: '7' }]);
    // on the record under the key the person picked
    const sessions = (await (await admin(h, '/mcp/sessions')).json()) as { data: { id: string; key: string; client: { name: string } | null }[] };
    expect(sessions.data).toEqual([expect.objectContaining({ key: 'support-desk', client: { name: 'Claude', version: '0.9.1' } })]);
    expect(await h.gateway.store.toolCalls.ofOwner('mcp', sessions.data[0]!.id)).toEqual([expect.objectContaining({ server: 'tickets', tool: 'lookup_ticket', keyName: 'support-desk', status: 'succeeded' })]);

    // listed on the console's API (what the keys page shows), no token in it
    const listed = (await (await admin(h, '/mcp/grants')).json()) as { data: { id: string; key: string; client: { name: string } }[] };
    expect(listed.data).toEqual([expect.objectContaining({ key: 'support-desk', client: { id: connector.client!.client_id, name: 'Claude' } })]);
    expect(JSON.stringify(listed)).not.toContain(connector.saved!.access_token);

    // refresh: a new pair, the old access token refused at once
    const before = connector.saved!;
    expect(await auth(connector, { serverUrl: `${h.url}/mcp` })).toBe('AUTHORIZED');
    expect(connector.saved!.access_token).not.toBe(before.access_token);
    expect(connector.saved!.refresh_token).not.toBe(before.refresh_token);
    const old = await fetch(`${h.url}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${before.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    expect(old.status).toBe(401);
    expect(old.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const refreshed = connectorClient();
    await refreshed.connect(connectorTransport(h.url, connector));
    expect(await refreshed.callTool({ name: 'tickets__lookup_ticket', arguments: { id: '8' } })).toMatchObject({ content: [{ text: 'ticket 8 is open' }] });
    // the old refresh token is spent
    const reused = await fetch(`${h.url}/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: before.refresh_token!, client_id: connector.client!.client_id }) });
    expect(await reused.json()).toMatchObject({ error: 'invalid_grant' });

    // revoked by a person: the next request is 401, and the refresh token is dead too
    const revoked = await admin(h, `/mcp/grants/${listed.data[0]!.id}`, { method: 'DELETE' });
    expect(await revoked.json()).toEqual({ id: listed.data[0]!.id, revoked: true });
    const refused = await fetch(`${h.url}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${connector.saved!.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    expect(refused.status).toBe(401);
    await expect(refreshed.callTool({ name: 'tickets__lookup_ticket', arguments: { id: '9' } })).rejects.toThrow();
    expect(tickets!.invocations.map((i) => i.id)).toEqual(['7', '8']);
    expect((await (await admin(h, '/mcp/grants')).json()) as unknown).toEqual({ data: [] });
  });

  it('a person who denies sends the client back with access_denied; metadata names herald as the authorization server', async () => {
    const h = await start();
    const prm = (await (await fetch(`${h.url}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<string, unknown>;
    expect(prm).toMatchObject({ resource: `${h.url}/mcp`, authorization_servers: [h.url] });
    const asMetadata = (await (await fetch(`${h.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(asMetadata).toMatchObject({ issuer: `${h.url}/`, authorization_endpoint: `${h.url}/authorize`, registration_endpoint: `${h.url}/register`, code_challenge_methods_supported: ['S256'], client_id_metadata_document_supported: true });

    const connector = new ConnectorAuth(REDIRECT, 'ChatGPT');
    await expect(connectorClient().connect(connectorTransport(h.url, connector))).rejects.toThrow(UnauthorizedError);
    const { redirectTo } = await consentAsBrowser(h.url, connector.opened[0]!, { decision: 'deny' });
    expect(redirectTo.searchParams.get('error')).toBe('access_denied');
    expect(redirectTo.searchParams.get('code')).toBeNull();
    // an unknown key cannot be given
    await expect(consentAsBrowser(h.url, connector.opened[0]!, { decision: 'allow', key: 'nope' })).rejects.toThrow(/no API key named/);
    // a token endpoint's garbage: the SDK's OAuth errors, never a 5xx
    const garbage = await fetch(`${h.url}/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=authorization_code&code=x&client_id=nobody' });
    expect(garbage.status).toBe(400);
  });

  it("a confidential client's secret is kept as its SHA-256 only; a wrong one is invalid_client; one stored plain before still works, then is kept hashed", async () => {
    const h = await start();
    const connector = new ConfidentialAuth(REDIRECT, 'Cursor');
    await expect(connectorClient().connect(connectorTransport(h.url, connector))).rejects.toThrow(UnauthorizedError);
    const secret = connector.client!.client_secret!;
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    const key = `mcp-oauth:client:${connector.client!.client_id}`;
    const stored = (await h.gateway.store.state!.get<Record<string, unknown>>(key))!;
    expect(stored.client_secret).toBeUndefined();
    expect(stored.client_secret_sha256).toBe(createHash('sha256').update(secret).digest('hex'));
    expect(JSON.stringify(stored)).not.toContain(secret);

    const { redirectTo } = await consentAsBrowser(h.url, connector.opened[0]!, { decision: 'allow', key: 'support-desk' });
    const code = redirectTo.searchParams.get('code')!;
    const token = (form: Record<string, string>) => fetch(`${h.url}/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: connector.codeVerifier(), client_id: connector.client!.client_id, redirect_uri: REDIRECT, ...form }) });
    // the secret with its last digit changed (a fixed digit would be the secret itself once in 16 runs)
    const wrong = `${secret.slice(0, -1)}${secret.endsWith('0') ? '1' : '0'}`;
    for (const [form, message] of [[{ client_secret: wrong }, 'Invalid client_secret'], [{}, 'Client secret is required']] as const) {
      const refused = await token(form);
      expect(refused.status).toBe(400);
      expect(await refused.json()).toEqual({ error: 'invalid_client', error_description: message });
    }
    // the SDK's client sends its secret (client_secret_post): the code was not spent by the refusals
    await connectorTransport(h.url, connector).finishAuth(code);
    const mcp = connectorClient();
    await mcp.connect(connectorTransport(h.url, connector));
    expect(await mcp.callTool({ name: 'tickets__lookup_ticket', arguments: { id: '3' } })).toMatchObject({ isError: false });

    // a registration kept by an earlier herald, its secret in plain text: refresh still authenticates, and the secret is then kept hashed
    const { client_secret_sha256: _hash, ...rest } = (await h.gateway.store.state!.get<Record<string, unknown>>(key))!;
    await h.gateway.store.state!.set(key, { ...rest, client_secret: secret });
    expect(await auth(connector, { serverUrl: `${h.url}/mcp` })).toBe('AUTHORIZED');
    const after = (await h.gateway.store.state!.get<Record<string, unknown>>(key))!;
    expect(after.client_secret).toBeUndefined();
    expect(after.client_secret_sha256).toBe(createHash('sha256').update(secret).digest('hex'));
  });

  it('off: no authorization server, the metadata names none, API keys alone open /mcp', async () => {
    const h = await start(false);
    expect((await fetch(`${h.url}/.well-known/oauth-authorization-server`)).status).toBe(404);
    expect((await fetch(`${h.url}/register`, { method: 'POST' })).status).toBe(404);
    const prm = (await (await fetch(`${h.url}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<string, unknown>;
    expect(prm.authorization_servers).toBeUndefined();
  });
});
