import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { importSPKI, jwtVerify } from 'jose';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createOAuthMetadata, mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { InvalidGrantError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthServerProvider, AuthorizationParams } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { z } from 'zod';

/**
 * An MCP server that asks for OAuth 2.1, made with the SDK's server auth as the MCP
 * Authorization section (2025-11-25) describes it: the resource at /mcp behind
 * `requireBearerAuth` (401 with `WWW-Authenticate: Bearer ... resource_metadata=...`), Protected
 * Resource Metadata (RFC 9728) and the authorization server (`mcpAuthRouter`: RFC 8414 metadata,
 * /authorize, /token, /register) on the same origin, and a demo provider that issues, refreshes
 * and rotates tokens (RFC 6749 §6, OAuth 2.1 §4.3.1: a refresh token is spent by its use).
 *
 * The SDK's token endpoint authenticates clients by client_secret_post only and takes no
 * client_credentials grant ("Additional auth methods will not be added on the server side of
 * the SDK", handlers/token.ts); this fake adds client_secret_basic (RFC 6749 §2.3.1),
 * private_key_jwt (RFC 7523 §2.2) and client_credentials (RFC 6749 §4.4) in front of it.
 */
export interface OAuthMcpOptions {
  /** WWW-Authenticate carries resource_metadata (default true); false: the client looks at the well-known URLs */
  resourceMetadataInChallenge?: boolean;
  /** the scopes every call needs (default ['mcp:tools']) */
  scopes?: string[];
  /** the tool `admin_tool` needs this scope as well (a 403 insufficient_scope until the token has it) */
  adminScope?: string;
  /** token_endpoint_auth_methods_supported (default client_secret_post, none) */
  authMethods?: string[];
  /** the authorization server takes a Client ID Metadata Document (SEP-991) */
  clientIdMetadataDocuments?: boolean;
  /** dynamic client registration (default true) */
  registration?: boolean;
  /** access tokens' lifetime (default 3600 s) */
  expiresIn?: number;
  /** clients known before (pre-registered) */
  clients?: OAuthClientInformationFull[];
  /** a client's public key for private_key_jwt, by client id */
  jwtKeys?: Record<string, string>;
  /** fetch for the client metadata documents (herald's public URL maps to the app under test) */
  documentFetch?: typeof fetch;
}

export interface OAuthMcpServer {
  url: string;
  issuer: string;
  /** every token the server issued: access and refresh, for the grep of herald's output */
  issued: string[];
  /** client secrets of the clients it registered */
  secrets: string[];
  /** the token requests, by grant type, with how the client authenticated */
  tokenRequests: { grant: string; auth: 'basic' | 'post' | 'jwt' | 'none'; resource?: string; clientId?: string }[];
  /** authorization requests: their scope and resource */
  authorizations: { scope?: string; resource?: string; clientId: string }[];
  /** client metadata documents fetched */
  documents: string[];
  /** clients registered by dynamic client registration (RFC 7591), as the server stored them */
  registered: OAuthClientInformationFull[];
  /** requests to the MCP endpoint refused with a 401 (no token, or a token expired or unknown) */
  refusals: number;
  /** refresh tokens presented after they were spent (a client refreshing twice with one) */
  spentRefreshes: number;
  /** a refresh token refused from now on: the next refresh fails with invalid_grant */
  revokeRefreshTokens(): void;
  /** the access tokens stop working (as after their expiry), refresh tokens still do */
  expireAccessTokens(): void;
  close(): Promise<void>;
}

export async function startOAuthMcpServer(options: OAuthMcpOptions = {}): Promise<OAuthMcpServer> {
  const app = express();
  const server: http.Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const mcpUrl = new URL('/mcp', origin);
  const scopes = options.scopes ?? ['mcp:tools'];
  const state: OAuthMcpServer = {
    url: mcpUrl.href,
    issuer: `${origin}/`,
    issued: [],
    secrets: [],
    tokenRequests: [],
    authorizations: [],
    documents: [],
    registered: [],
    refusals: 0,
    spentRefreshes: 0,
    revokeRefreshTokens: () => refreshTokens.clear(),
    expireAccessTokens: () => accessTokens.clear(),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };

  const clients = new Map<string, OAuthClientInformationFull>((options.clients ?? []).map((c) => [c.client_id, c]));
  const clientsStore: OAuthRegisteredClientsStore = {
    async getClient(clientId) {
      const known = clients.get(clientId);
      if (known) return known;
      // SEP-991: a client id that is an https URL names its metadata document, fetched here
      if (options.clientIdMetadataDocuments && clientId.startsWith('https://')) {
        const doc = (await (await (options.documentFetch ?? fetch)(clientId)).json()) as OAuthClientInformationFull;
        state.documents.push(clientId);
        if (doc.client_id !== clientId) return undefined;
        return doc;
      }
      return undefined;
    },
    ...(options.registration !== false && {
      registerClient(client: Omit<OAuthClientInformationFull, 'client_id' | 'client_id_issued_at'>) {
        const full: OAuthClientInformationFull = { ...client, client_id: randomUUID(), client_id_issued_at: Math.floor(Date.now() / 1000) };
        if (client.token_endpoint_auth_method !== 'none') {
          full.client_secret = `secret-${randomUUID()}`;
          state.secrets.push(full.client_secret);
        }
        clients.set(full.client_id, full);
        state.registered.push(full);
        return full;
      },
    }),
  };

  const codes = new Map<string, { client: OAuthClientInformationFull; params: AuthorizationParams }>();
  const accessTokens = new Map<string, AuthInfo>();
  const refreshTokens = new Map<string, { clientId: string; scopes: string[]; resource?: URL }>();
  const spent = new Set<string>();
  const expiresIn = options.expiresIn ?? 3600;

  function issue(clientId: string, granted: string[], resource: URL | undefined, withRefresh: boolean): OAuthTokens {
    const access = `at-${randomUUID()}`;
    // to the millisecond (requireBearerAuth compares expiresAt with Date.now() / 1000): a short-lived token expires when it says
    accessTokens.set(access, { token: access, clientId, scopes: granted, expiresAt: Date.now() / 1000 + expiresIn, resource });
    state.issued.push(access);
    const tokens: OAuthTokens = { access_token: access, token_type: 'bearer', expires_in: expiresIn, scope: granted.join(' ') };
    if (withRefresh) {
      const refresh = `rt-${randomUUID()}`;
      refreshTokens.set(refresh, { clientId, scopes: granted, resource });
      state.issued.push(refresh);
      tokens.refresh_token = refresh;
    }
    return tokens;
  }

  const provider: OAuthServerProvider = {
    clientsStore,
    async authorize(client, params, res) {
      state.authorizations.push({ scope: params.scopes?.join(' '), resource: params.resource?.href, clientId: client.client_id });
      // the person consents at once: the demo provider's answer (examples/server/demoInMemoryOAuthProvider.ts)
      const code = `code-${randomUUID()}`;
      codes.set(code, { client, params });
      state.issued.push(code);
      const target = new URL(params.redirectUri);
      target.searchParams.set('code', code);
      if (params.state !== undefined) target.searchParams.set('state', params.state);
      res.redirect(target.href);
    },
    async challengeForAuthorizationCode(_client, code) {
      const found = codes.get(code);
      if (!found) throw new InvalidGrantError('unknown code');
      return found.params.codeChallenge;
    },
    async exchangeAuthorizationCode(client, code, _verifier, _redirectUri, resource) {
      const found = codes.get(code);
      if (!found || found.client.client_id !== client.client_id) throw new InvalidGrantError('unknown code');
      codes.delete(code);
      if (resource?.href !== mcpUrl.href) throw new InvalidGrantError(`resource must be ${mcpUrl.href}`);
      return issue(client.client_id, found.params.scopes ?? [], resource, true);
    },
    async exchangeRefreshToken(client, refreshToken, _scopes, resource) {
      const found = refreshTokens.get(refreshToken);
      if (spent.has(refreshToken)) state.spentRefreshes++;
      if (!found || found.clientId !== client.client_id) throw new InvalidGrantError('the refresh token is not valid');
      // rotated: the one presented is spent
      refreshTokens.delete(refreshToken);
      spent.add(refreshToken);
      return issue(client.client_id, found.scopes, resource ?? found.resource, true);
    },
    async verifyAccessToken(token) {
      const info = accessTokens.get(token);
      if (!info || (info.expiresAt ?? 0) < Date.now() / 1000) throw new InvalidTokenError('the token is not valid');
      return info;
    },
  };

  const issuerUrl = new URL(origin);
  const metadata = {
    ...createOAuthMetadata({ provider, issuerUrl, scopesSupported: [...scopes, ...(options.adminScope ? [options.adminScope] : [])] }),
    token_endpoint_auth_methods_supported: options.authMethods ?? ['client_secret_post', 'none'],
    grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
    ...(options.clientIdMetadataDocuments && { client_id_metadata_document_supported: true }),
  };
  app.get('/.well-known/oauth-authorization-server', (_req, res) => void res.json(metadata));

  // the token endpoint's client authentication beyond client_secret_post, and client_credentials
  app.post('/token', express.urlencoded({ extended: false }), async (req, res, next) => {
    const body = req.body as Record<string, string>;
    let auth: 'basic' | 'post' | 'jwt' | 'none' = body.client_secret ? 'post' : 'none';
    const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '');
    if (basic) {
      const [id, secret] = Buffer.from(basic[1]!, 'base64').toString('utf8').split(':').map(decodeURIComponent);
      body.client_id = id!;
      body.client_secret = secret!;
      auth = 'basic';
    }
    if (body.client_assertion_type === 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer') {
      const claims = await verifyAssertion(body.client_assertion!, options.jwtKeys ?? {}, `${origin}/token`).catch(() => undefined);
      if (!claims) return void res.status(401).json({ error: 'invalid_client', error_description: 'the client assertion is not valid' });
      body.client_id = claims;
      auth = 'jwt';
    }
    state.tokenRequests.push({ grant: body.grant_type!, auth, resource: body.resource, clientId: body.client_id });
    if (body.grant_type !== 'client_credentials') return next();
    res.setHeader('Cache-Control', 'no-store');
    const client = clients.get(body.client_id ?? '');
    const authenticated = client && (auth === 'jwt' || (client.client_secret !== undefined && client.client_secret === body.client_secret));
    if (!authenticated) return void res.status(401).json({ error: 'invalid_client', error_description: 'unknown client or wrong secret' });
    if (body.resource !== mcpUrl.href) return void res.status(400).json({ error: 'invalid_target', error_description: `resource must be ${mcpUrl.href}` });
    res.json(issue(client.client_id, body.scope?.split(' ') ?? scopes, new URL(body.resource), false));
  });
  // client_id of a jwt-authenticated request: the SDK's client auth then finds no secret to compare
  app.use(
    mcpAuthRouter({
      provider,
      issuerUrl,
      resourceServerUrl: mcpUrl,
      scopesSupported: [...scopes, ...(options.adminScope ? [options.adminScope] : [])],
      authorizationOptions: { rateLimit: false },
      tokenOptions: { rateLimit: false },
      clientRegistrationOptions: { rateLimit: false },
      revocationOptions: { rateLimit: false },
    }),
  );

  const transports = new Map<string, StreamableHTTPServerTransport>();
  const bearer = requireBearerAuth({
    verifier: provider,
    requiredScopes: scopes,
    ...(options.resourceMetadataInChallenge !== false && { resourceMetadataUrl: `${origin}/.well-known/oauth-protected-resource/mcp` }),
  });
  const counted: express.RequestHandler = (_req, res, next) => {
    res.on('finish', () => void (res.statusCode === 401 && state.refusals++));
    next();
  };
  app.all('/mcp', counted, express.json(), bearer, async (req, res) => {
    const auth = (req as unknown as { auth: AuthInfo }).auth;
    const body = req.body as { method?: string; params?: { name?: string } } | undefined;
    // step-up (MCP Authorization, "Scope Challenge Handling"): this tool needs a scope the token may lack
    if (options.adminScope && body?.method === 'tools/call' && body.params?.name === 'admin_tool' && !auth.scopes.includes(options.adminScope)) {
      const wanted = [...scopes, options.adminScope].join(' ');
      res.set('WWW-Authenticate', `Bearer error="insufficient_scope", scope="${wanted}", resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp", error_description="needs ${options.adminScope}"`);
      return void res.status(403).json({ error: 'insufficient_scope' });
    }
    const sessionId = req.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
    if (!transport) {
      const created = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => void transports.set(id, created) });
      const mcp = new McpServer({ name: 'oauth-test', version: '1.0.0' });
      mcp.registerTool('whoami', { description: 'Who the token belongs to', inputSchema: {}, annotations: { readOnlyHint: true } }, async (_args, extra) => ({
        content: [{ type: 'text' as const, text: JSON.stringify({ client: extra.authInfo?.clientId, scopes: extra.authInfo?.scopes }) }],
      }));
      // as server-everything's echo: the tools benchmark's signed-in server (bench/mcp-oauth-echo-server.ts)
      mcp.registerTool('echo', { description: 'Echoes back the input string', inputSchema: { message: z.string() }, annotations: { readOnlyHint: true } }, async ({ message }) => ({ content: [{ type: 'text' as const, text: `Echo: ${message}` }] }));
      mcp.registerTool('admin_tool', { description: 'Needs the admin scope', inputSchema: { note: z.string().optional() } }, async () => ({ content: [{ type: 'text' as const, text: 'admin done' }] }));
      await mcp.connect(created);
      transport = created;
    }
    await transport.handleRequest(req as unknown as http.IncomingMessage & { auth?: AuthInfo }, res, req.body);
  });
  return state;
}

async function verifyAssertion(assertion: string, keys: Record<string, string>, audience: string): Promise<string> {
  const [, payload] = assertion.split('.');
  const { iss } = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')) as { iss: string };
  const pem = keys[iss];
  if (!pem) throw new Error('unknown client');
  const key = await importSPKI(pem, 'RS256');
  const { payload: claims } = await jwtVerify(assertion, key, { issuer: iss, subject: iss });
  const aud = ([] as string[]).concat(claims.aud ?? []);
  if (!aud.some((a) => a === audience || audience.startsWith(a))) throw new Error('wrong audience');
  return iss;
}
