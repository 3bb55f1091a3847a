import fs from 'node:fs';
import path from 'node:path';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { afterEach, describe, expect, it } from 'vitest';
import { killLeftOver, spawnHerald, type SpawnedHerald } from '../cli/spawn-herald.js';
import { API_KEY, baseConfig, tempDir } from '../helpers/start-herald.js';
import { startTicketServer, type TicketServer } from '../tools/ticket-server.js';
import { startClientMetadataHost, type ClientMetadataHost } from './client-metadata-host.js';
import { connectorClient, connectorTransport, consentAsBrowser, ConnectorAuth } from './oauth-client.js';

/**
 * herald's authorization server with a client known by its Client ID Metadata Document
 * (draft-ietf-oauth-client-id-metadata-document; MCP authorization 2025-11-25): the client's id
 * is the https URL of its metadata, which herald fetches (trusting the site's certificate through
 * NODE_EXTRA_CA_CERTS, as any CA an operator adds). The SDK's client auth with its
 * clientMetadataUrl: no registration, a person's consent on the console API, tokens, a governed
 * call. And the refusals: a client id URL that is not https, a document naming another
 * client_id, a redirect_uri the document does not list. `herald serve` as a real process.
 */
const REDIRECT = 'http://127.0.0.1:9/callback';
let site: ClientMetadataHost | undefined;
let tickets: TicketServer | undefined;
let spawned: SpawnedHerald | undefined;
afterEach(async () => {
  await killLeftOver(spawned);
  await site?.close();
  await tickets?.close();
  site = tickets = spawned = undefined;
});

/** a connector whose client id is its metadata document's URL (the SDK uses it when herald says it takes them) */
class MetadataDocumentAuth extends ConnectorAuth {
  constructor(
    redirect: string,
    name: string,
    readonly clientMetadataUrl: string,
  ) {
    super(redirect, name);
  }
}

const metadata = (clientId: string, name: string) => ({ client_id: clientId, client_name: name, redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' });

async function start(): Promise<string> {
  site = await startClientMetadataHost();
  tickets = await startTicketServer();
  const dir = tempDir();
  const file = path.join(dir, 'herald.json');
  fs.writeFileSync(
    file,
    JSON.stringify(
      baseConfig({
        storage: { sqlite: path.join(dir, 'herald.db') },
        platform: { mcp: { enabled: true, oauth: { enabled: true } }, apiKeys: [{ name: 'support-desk', key: API_KEY, agents: ['main'], tools: { servers: ['tickets'], allow: ['tickets__lookup_ticket'] } }] },
        tools: { mcpServers: { tickets: { url: tickets.url } } },
      }),
    ),
  );
  spawned = spawnHerald(['serve', '--config', file], { env: { NODE_EXTRA_CA_CERTS: site.caFile } });
  return (await spawned.waitFor(/herald listening on (http:\/\/\S+)/))[1]!;
}

/** GET /authorize as a browser sends it, for a client id and redirect URI */
const authorize = (url: string, clientId: string, redirectUri = REDIRECT) =>
  fetch(`${url}/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: redirectUri, code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256', resource: `${url}/mcp` })}`, { redirect: 'manual' });

describe('a client known by its Client ID Metadata Document', { timeout: 90_000 }, () => {
  it('authorizes without registering: consent on the console, tokens, a governed call; the refusals say why', async () => {
    const url = await start();
    const clientId = site!.put('/clients/probe.json', metadata(`${site!.origin}/clients/probe.json`, 'Probe via CIMD'));
    const connector = new MetadataDocumentAuth(REDIRECT, 'ignored: the document names the client', clientId);
    await expect(connectorClient().connect(connectorTransport(url, connector))).rejects.toThrow(UnauthorizedError);
    const authorizeUrl = connector.opened[0]!;
    expect(authorizeUrl.searchParams.get('client_id')).toBe(clientId);
    // no registration: herald read the client's document from its site
    expect(connector.client).toEqual(expect.objectContaining({ client_id: clientId }));
    const { client, redirectTo } = await consentAsBrowser(url, authorizeUrl, { decision: 'allow', key: 'support-desk' });
    expect(client.name).toBe('Probe via CIMD');
    expect(site!.requested).toContain('/clients/probe.json');

    const transport = connectorTransport(url, connector);
    await transport.finishAuth(redirectTo.searchParams.get('code')!);
    expect(connector.saved).toMatchObject({ token_type: 'Bearer', refresh_token: expect.stringMatching(/^hmcp_rt_/) });
    const mcp = connectorClient();
    await mcp.connect(transport);
    expect(await mcp.callTool({ name: 'tickets__lookup_ticket', arguments: { id: '5' } })).toMatchObject({ content: [{ text: 'ticket 5 is open' }], isError: false });
    expect(tickets!.invocations).toEqual([{ tool: 'lookup_ticket', id: '5' }]);
    await mcp.close();

    // a client id URL that is not https
    const plain = await authorize(url, 'http://127.0.0.1:9/clients/probe.json');
    expect(plain.status).toBe(400);
    expect(await plain.json()).toEqual({ error: 'invalid_client', error_description: expect.stringMatching(/is a URL but not https: a Client ID Metadata Document is fetched over https only \(draft-ietf-oauth-client-id-metadata-document §3\)/) });

    // a document whose client_id is not its own URL
    const copied = site!.put('/clients/copied.json', metadata(clientId, 'Copied'));
    const other = await authorize(url, copied);
    expect(other.status).toBe(400);
    expect(await other.json()).toEqual({ error: 'invalid_client', error_description: `the client's metadata document at ${copied} names client_id "${clientId}", not its own URL (draft-ietf-oauth-client-id-metadata-document §4)` });

    // a redirect_uri the document does not list: refused to the browser, never redirected to
    const elsewhere = await authorize(url, clientId, 'https://attacker.example/callback');
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.headers.get('location')).toBeNull();
    expect(await elsewhere.json()).toEqual({ error: 'invalid_request', error_description: `redirect_uri https://attacker.example/callback is not among the redirect_uris of the client's metadata document at ${clientId} (draft-ietf-oauth-client-id-metadata-document §4)` });

    // a document the site does not serve
    const missing = await authorize(url, `${site!.origin}/clients/nobody.json`);
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: 'invalid_client', error_description: expect.stringContaining('could not be read: HTTP 404') });
  });
});
