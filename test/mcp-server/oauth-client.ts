import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { GATEWAY_TOKEN } from '../helpers/start-herald.js';

/**
 * An MCP client's OAuth state as a connector keeps it (the SDK's OAuthClientProvider): its
 * registration, PKCE verifier and tokens in memory; sending the person's browser to the
 * authorization URL is `open`'s (a test's fetch, or Chromium).
 */
export class ConnectorAuth implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  private verifier = '';
  /** the authorization URLs the client sent the person to */
  readonly opened: URL[] = [];

  constructor(
    readonly redirectUrl: string,
    private readonly name: string,
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return { client_name: this.name, redirect_uris: [this.redirectUrl], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.opened.push(url);
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

export function connectorTransport(url: string, auth: ConnectorAuth): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { authProvider: auth });
}

export const connectorClient = () => new Client({ name: 'Claude', version: '0.9.1' });

/**
 * A person's browser, without a browser: follows the authorization URL to herald's consent page,
 * signs in to the console with the gateway token (its cookie and CSRF token, as the page keeps
 * them), reads the request and answers it; returns where the browser goes next (the client's
 * redirect URI with its code).
 */
export async function consentAsBrowser(herald: string, authorizationUrl: URL, answer: { decision: 'allow'; key: string } | { decision: 'deny' }): Promise<{ client: { name: string }; redirectTo: URL }> {
  const first = await fetch(authorizationUrl, { redirect: 'manual' });
  if (first.status !== 302) throw new Error(`authorize answered ${first.status}: ${await first.text()}`);
  const consent = new URL(first.headers.get('location')!, herald);
  const requestId = decodeURIComponent(consent.hash.replace('#/connect/', ''));
  const signIn = await fetch(`${herald}/console/session`, { method: 'POST', headers: { 'content-type': 'application/json', origin: herald }, body: JSON.stringify({ token: GATEWAY_TOKEN }) });
  const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
  const { csrf } = (await signIn.json()) as { csrf: string };
  const request = (await (await fetch(`${herald}/admin/mcp/authorizations/${requestId}`, { headers: { cookie } })).json()) as { client: { name: string } };
  const answered = await fetch(`${herald}/admin/mcp/authorizations/${requestId}`, { method: 'POST', headers: { cookie, 'x-csrf-token': csrf, 'content-type': 'application/json', origin: herald }, body: JSON.stringify(answer) });
  const body = (await answered.json()) as { redirectTo: string };
  if (!answered.ok) throw new Error(`consent answered ${answered.status}: ${JSON.stringify(body)}`);
  return { client: request.client, redirectTo: new URL(body.redirectTo) };
}
