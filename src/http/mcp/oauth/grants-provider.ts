import type { Response } from 'express';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthClientInformationFull, OAuthTokenRevocationRequest, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { InvalidClientError, InvalidGrantError, InvalidTargetError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { HeraldError } from '../../../errors.js';
import type { GrantClient, McpGrants } from '../../../accounts/mcp-grants.js';
import { clientMetadataDocument, clientMetadataUrlFault, isClientMetadataUrl } from './client-metadata-document.js';

/** where a person consents: the console's page for one authorization request */
export const consentPage = (requestId: string) => `/console#/connect/${encodeURIComponent(requestId)}`;

/**
 * The SDK's OAuthServerProvider for one origin's /mcp, backed by herald's grants (the store's
 * state): the SDK's handlers check the requests (client, redirect URI, PKCE, methods, rate
 * limits) and call these for what herald decides. `authorize` sends the browser to the console,
 * where a person signs in with the gateway token and picks the API key whose grants the client
 * receives; every token is for `resource` (`<origin>/mcp`) alone.
 */
export class GrantsProvider implements OAuthServerProvider {
  readonly clientsStore: OAuthRegisteredClientsStore;

  constructor(
    private readonly grants: McpGrants,
    private readonly resource: string,
  ) {
    this.clientsStore = {
      getClient: async (clientId) => {
        const fault = clientMetadataUrlFault(clientId);
        if (fault) throw new InvalidClientError(fault);
        return isClientMetadataUrl(clientId) ? clientMetadataDocument(clientId) : asClient(await grants.client(clientId));
      },
      registerClient: async (client) => asClient(await grants.registerClient(client as GrantClient))!,
    };
  }

  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response): Promise<void> {
    this.checkResource(params.resource);
    const pending = await this.grants.request({
      clientId: client.client_id,
      clientName: (client.client_name ?? client.client_id).slice(0, 200),
      redirectUri: params.redirectUri,
      codeChallenge: params.codeChallenge,
      ...(params.state !== undefined && { state: params.state }),
      resource: this.resource,
    });
    res.redirect(302, consentPage(pending.id));
  }

  challengeForAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<string> {
    return oauthErrors(() => this.grants.challenge(client.client_id, code));
  }

  exchangeAuthorizationCode(client: OAuthClientInformationFull, code: string, _verifier?: string, redirectUri?: string, resource?: URL): Promise<OAuthTokens> {
    this.checkResource(resource);
    return oauthErrors(() => this.grants.exchangeCode(client.client_id, code, redirectUri, this.resource));
  }

  exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string, _scopes?: string[], resource?: URL): Promise<OAuthTokens> {
    this.checkResource(resource);
    return oauthErrors(() => this.grants.refresh(client.client_id, refreshToken, this.resource));
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const access = await this.grants.verify(token);
    if (!access || access.resource !== this.resource) throw new InvalidTokenError('the access token is unknown, revoked or expired');
    return { token, clientId: access.clientId, scopes: [], expiresAt: Math.floor(access.expiresAt / 1000), resource: new URL(access.resource), extra: { key: access.key } };
  }

  async revokeToken(client: OAuthClientInformationFull, request: OAuthTokenRevocationRequest): Promise<void> {
    await this.grants.revokeToken(client.client_id, request.token);
  }

  /** RFC 8707: a token is only ever for /mcp of this origin */
  private checkResource(resource: URL | undefined): void {
    if (resource && resource.href !== this.resource) throw new InvalidTargetError(`resource must be ${this.resource}`);
  }
}

const asClient = (client: GrantClient | undefined) => client as OAuthClientInformationFull | undefined;

async function oauthErrors<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof HeraldError && error.code === 'HERALD_OAUTH_INVALID_GRANT') throw new InvalidGrantError(error.message);
    throw error;
  }
}
