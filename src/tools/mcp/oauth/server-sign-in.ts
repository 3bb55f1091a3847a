import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { ServerOAuthConfig } from '../../../config/sections/tools-schema.js';
import { HeraldError } from '../../../errors.js';
import { loadOAuthSdk, type OAuthSdk } from './oauth-sdk.js';
import type { OAuthVault, SignInRecord } from './oauth-vault.js';
import { SecretMask } from './secret-mask.js';
import { SignInNeeded } from './sign-in-needed.js';

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

export interface SignInDeps {
  server: string;
  url: string;
  oauth?: ServerOAuthConfig;
  /** the config file's folder: privateKeyFile is relative to it */
  baseDir: string;
  /** undefined without tools.oauth.encryptionKey: nothing can be kept, so nobody can sign in */
  vault?: OAuthVault;
  /** gateway.publicUrl, or the address herald listens on */
  publicUrl: () => string;
  /** this process, among replicas sharing the store */
  replica: string;
  logger: Logger;
}

/** a sign-in started by a person expires after this long (the browser must come back before) */
export const PENDING_MS = 10 * 60_000;
/** tokens are refreshed this long before they expire (a quarter of a shorter life), so no call meets an expired one */
const EARLY_MS = 60_000;
/** how long one replica may hold the right to refresh (a refresh that takes longer is given up) */
const REFRESH_HOLD_MS = 30_000;
/** a replica that waits for another's refresh looks at the store this often */
const PEER_POLL_MS = 250;
/** the most times in a row a server may ask for a wider scope after signing in with what it asked */
export const MAX_STEP_UPS = 2;
export const CALLBACK_PATH = '/oauth/callback';
export const CLIENT_METADATA_PATH = '/oauth/client-metadata.json';

/**
 * One Streamable HTTP server's OAuth 2.1 sign-in (MCP Authorization, 2025-11-25), done by the
 * SDK's client auth (`auth()`: discovery from the 401, protected resource and authorization
 * server metadata, resource indicators, client metadata document or dynamic registration,
 * PKCE, refresh) with herald's store behind its `OAuthClientProvider`. What herald adds:
 * - `fetch` for the server's transport: the bearer token on every request, a refresh before the
 *   token expires and on a 401, once for all the calls in flight (and, through the store, once
 *   across replicas: a rotating refresh token is spent once);
 * - a sign-in a person starts (`begin`) and the browser's return (`finish`);
 * - a server that waits for a person says so (`SignInNeeded`) instead of failing.
 */
export class ServerSignIn {
  private record?: SignInRecord;
  private loaded?: Promise<void>;
  private renewing?: Promise<void>;
  private stepUps = 0;
  /** the server's last word on where its metadata is and what scope it wants */
  private resourceMetadataUrl?: URL;
  private readonly masks: SecretMask;
  private readonly log: Logger;
  private signedIn = new Set<() => void>();

  constructor(readonly deps: SignInDeps) {
    this.log = deps.logger.child({ component: 'tools', server: deps.server });
    this.masks = new SecretMask(deps.oauth?.clientSecret ? [deps.oauth.clientSecret] : []);
  }

  get machine(): boolean {
    return this.deps.oauth?.grant === 'client_credentials';
  }

  get redirectUrl(): string {
    return new URL(CALLBACK_PATH, withSlash(this.deps.publicUrl())).href;
  }

  /** herald's client metadata document URL: only an https one may be a client id (SEP-991) */
  get clientMetadataUrl(): string | undefined {
    const url = new URL(CLIENT_METADATA_PATH, withSlash(this.deps.publicUrl()));
    return url.protocol === 'https:' ? url.href : undefined;
  }

  /** what herald says about itself as an OAuth client (its metadata document, its registrations) */
  clientMetadata(scope?: string): OAuthClientMetadata {
    return clientMetadataOf(this.redirectUrl, scope ?? this.deps.oauth?.scope);
  }

  /** every secret this sign-in has seen, replaced by *** in `text` (a server may echo one back) */
  mask(text: string): string {
    return this.masks.apply(text);
  }

  /** the sign-in's scope of the moment: configured, else what the server asked for last */
  get scope(): string | undefined {
    return this.deps.oauth?.scope ?? this.record?.scope;
  }

  /** resolves (once) when a sign-in is finished here or by another replica, or `signal` aborts */
  untilSignedIn(signal: AbortSignal, pollMs: number): Promise<void> {
    return new Promise((resolve) => {
      const from = this.record?.version ?? 0;
      const done = () => {
        clearInterval(timer);
        this.signedIn.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      this.signedIn.add(done);
      signal.addEventListener('abort', done);
      // another replica's sign-in reaches this one through the store
      const timer = setInterval(() => {
        void this.deps.vault?.read(this.deps.server).then((r) => {
          if (r?.url === this.deps.url && r.version > from && r.tokens) {
            this.adopt(r);
            done();
          }
        }, () => undefined);
      }, pollMs);
      timer.unref();
    });
  }

  /**
   * fetch for the server's transport: the current access token on every request; a 401 renews
   * it (refresh, or client credentials again) and sends once more; a 403 insufficient_scope asks
   * a person for the wider scope. Throws `SignInNeeded` when only a person can go on.
   */
  fetch(next: Fetch): Fetch {
    return async (url, init) => {
      const sdk = await loadOAuthSdk();
      await this.load();
      if (this.expiring()) await this.renew(this.record?.tokens?.access_token, sdk, next);
      let token = this.record?.tokens?.access_token;
      let response = await next(url, withBearer(init, token));
      if (response.status === 401) {
        // a server with neither an oauth section nor the spec's challenge keeps its plain 401 (a wrong fixed header)
        if (!this.deps.oauth && !/^\s*bearer\b/i.test(response.headers.get('www-authenticate') ?? '')) return response;
        this.heard(sdk, response);
        await response.body?.cancel().catch(() => undefined);
        await this.renew(token, sdk, next);
        token = this.record?.tokens?.access_token;
        response = await next(url, withBearer(init, token));
        if (response.status === 401) {
          await response.body?.cancel().catch(() => undefined);
          throw this.needsPerson('the server refused its new token: sign in again');
        }
      }
      if (response.status === 403) {
        const challenge = sdk.extractWWWAuthenticateParams(response);
        if (challenge.error === 'insufficient_scope') {
          await response.body?.cancel().catch(() => undefined);
          throw await this.stepUp(challenge.scope);
        }
      }
      if (response.ok) this.stepUps = 0;
      return response;
    };
  }

  /**
   * Starts a sign-in for a person: the authorization URL to open (PKCE, `state` kept in the
   * store for 10 minutes). A sign-in held already is replaced once the browser comes back.
   */
  async begin(): Promise<string> {
    if (this.machine) throw new HeraldError('HERALD_SIGN_IN_NOT_POSSIBLE', `the server ${this.deps.server} signs in with client credentials, without a person`);
    const vault = this.vaultOrRefuse();
    const sdk = await loadOAuthSdk();
    await this.load();
    const provider = new StoredProvider(this, vault, 'begin');
    const result = await this.guarded('starting the sign-in', () =>
      sdk.auth(provider, { serverUrl: this.deps.url, scope: this.scope, resourceMetadataUrl: this.resourceMetadataUrl, fetchFn: fetch }),
    );
    if (result !== 'REDIRECT' || !provider.authorizationUrl) throw new HeraldError('HERALD_SIGN_IN_FAILED', 'the authorization server gave no authorization URL');
    return provider.authorizationUrl.href;
  }

  /** the browser came back with `code`: trades it for tokens (with the verifier `begin` kept) */
  async finish(code: string, verifier: string): Promise<void> {
    const vault = this.vaultOrRefuse();
    this.masks.add(code);
    this.masks.add(verifier);
    const sdk = await loadOAuthSdk();
    await this.load();
    const provider = new StoredProvider(this, vault, 'finish', verifier);
    const result = await this.guarded('trading the code for tokens', () =>
      sdk.auth(provider, { serverUrl: this.deps.url, authorizationCode: code, scope: this.scope, resourceMetadataUrl: this.resourceMetadataUrl, fetchFn: fetch }),
    );
    if (result !== 'AUTHORIZED') throw new HeraldError('HERALD_SIGN_IN_FAILED', 'the authorization server gave no tokens');
    this.stepUps = 0;
    this.log.info({ scope: this.record?.tokens?.scope }, 'tool server signed in');
    for (const wake of [...this.signedIn]) wake();
  }

  /** forgets what the store holds for this server (a person signs in again from nothing) */
  async forget(): Promise<void> {
    await this.deps.vault?.forget(this.deps.server);
    this.record = undefined;
  }

  // --- what StoredProvider reads and writes ------------------------------------------------

  current(): SignInRecord | undefined {
    return this.record;
  }

  /** saves a change to the record (in the store first), keeping the secrets it holds masked */
  async save(vault: OAuthVault, fn: (record: SignInRecord) => SignInRecord): Promise<void> {
    const saved = await vault.change(this.deps.server, this.deps.url, (current) => fn(current ?? { url: this.deps.url, version: 0 }));
    this.adopt(saved);
  }

  /** the client herald is to the authorization server when config names one */
  configuredClient(): OAuthClientInformationMixed | undefined {
    const o = this.deps.oauth;
    if (!o?.clientId) return undefined;
    return { client_id: o.clientId, ...(o.clientSecret && { client_secret: o.clientSecret }), ...(o.clientSecret === undefined && !o.privateKeyFile && { token_endpoint_auth_method: 'none' }) };
  }

  /** the SDK's machine-to-machine provider of the configured client credentials (its token request and client authentication) */
  machineProvider(sdk: OAuthSdk): OAuthClientProvider | undefined {
    const o = this.deps.oauth;
    if (o?.grant !== 'client_credentials' || !o.clientId) return undefined;
    if (o.privateKeyFile) {
      const privateKey = fs.readFileSync(path.resolve(this.deps.baseDir, o.privateKeyFile), 'utf8');
      return new sdk.PrivateKeyJwtProvider({ clientId: o.clientId, privateKey, algorithm: o.algorithm, clientName: 'herald', scope: o.scope, ...(o.issuer && { expectedIssuer: o.issuer }) });
    }
    return new sdk.ClientCredentialsProvider({ clientId: o.clientId, clientSecret: o.clientSecret!, clientName: 'herald', scope: o.scope, ...(o.issuer && { expectedIssuer: o.issuer }) });
  }

  // --- inside -----------------------------------------------------------------------------

  private load(): Promise<void> {
    this.loaded ??= (async () => {
      const record = await this.deps.vault?.read(this.deps.server);
      if (record?.url === this.deps.url) this.adopt(record);
    })().catch((error: unknown) => {
      this.loaded = undefined;
      throw error;
    });
    return this.loaded;
  }

  private adopt(record: SignInRecord): void {
    if (this.record && record.version < this.record.version) return;
    this.record = record;
    for (const secret of [record.tokens?.access_token, record.tokens?.refresh_token, (record.client as { client_secret?: string } | undefined)?.client_secret]) if (secret) this.masks.add(secret);
  }

  private expiring(): boolean {
    const { expiresAt, obtainedAt, tokens } = this.record ?? {};
    if (expiresAt === undefined || tokens === undefined) return false;
    const early = Math.min(EARLY_MS, (expiresAt - (obtainedAt ?? expiresAt)) / 4);
    return expiresAt - Date.now() < early;
  }

  private heard(sdk: OAuthSdk, response: Response): void {
    const { resourceMetadataUrl, scope } = sdk.extractWWWAuthenticateParams(response);
    if (resourceMetadataUrl) this.resourceMetadataUrl = resourceMetadataUrl;
    if (scope && this.deps.vault && scope !== this.record?.scope) void this.save(this.deps.vault, (r) => ({ ...r, scope })).catch(() => undefined);
  }

  /**
   * New tokens, once for every call that needs them: calls in flight share one renewal, and
   * replicas share the store's right to refresh (the one that waits takes what the other saved).
   */
  private renew(stale: string | undefined, sdk: OAuthSdk, next: Fetch): Promise<void> {
    this.renewing ??= this.renewal(stale, sdk, next).finally(() => (this.renewing = undefined));
    return this.renewing;
  }

  private async renewal(stale: string | undefined, sdk: OAuthSdk, next: Fetch): Promise<void> {
    const vault = this.deps.vault;
    if (!vault) throw this.needsPerson('set tools.oauth.encryptionKey: herald keeps no sign-in without it');
    const { server, replica } = this.deps;
    const newer = async () => {
      const stored = await vault.read(server);
      if (stored?.url !== this.deps.url || !stored.tokens) return false;
      this.adopt(stored);
      return stored.tokens.access_token !== stale && !this.expiring();
    };
    if (await newer()) return;
    const deadline = Date.now() + REFRESH_HOLD_MS;
    while (!(await vault.claimRefresh(server, this.deps.url, replica, REFRESH_HOLD_MS))) {
      // another replica refreshes: its tokens land in the store
      if (Date.now() > deadline) throw new Error('another replica holds the refresh of this server too long');
      await sleep(PEER_POLL_MS);
      if (await newer()) return;
    }
    try {
      if (await newer()) return;
      const held = this.record?.tokens !== undefined;
      const provider = new StoredProvider(this, vault, 'renew', undefined, this.machineProvider(sdk));
      const result = await this.guarded('renewing its tokens', () =>
        sdk.auth(provider, { serverUrl: this.deps.url, scope: this.scope, resourceMetadataUrl: this.resourceMetadataUrl, fetchFn: next }),
      );
      if (result !== 'AUTHORIZED') throw this.needsPerson(held ? 'its tokens could not be refreshed: sign in again' : 'nobody has signed in to it yet');
      this.log.info('tool server tokens renewed');
    } finally {
      await vault.releaseRefresh(server, replica).catch(() => undefined);
    }
  }

  /** a 403 insufficient_scope: a person signs in again for the wider scope, a bounded number of times */
  private async stepUp(asked: string | undefined): Promise<Error> {
    const scope = unionScope(this.scope, asked);
    if (++this.stepUps > MAX_STEP_UPS) return new Error(`the server keeps asking for more scope (${asked ?? 'unnamed'}) after signing in with it`);
    if (this.deps.vault && scope) await this.save(this.deps.vault, (r) => ({ ...r, scope })).catch(() => undefined);
    return this.needsPerson(`the server asks for a wider scope (${scope ?? 'unnamed'}): sign in again`, scope);
  }

  private needsPerson(message: string, scope?: string): SignInNeeded {
    return new SignInNeeded(this.machine ? message.replace(/: sign in again$/, '') : message, scope);
  }

  private vaultOrRefuse(): OAuthVault {
    if (!this.deps.vault) throw new HeraldError('HERALD_SIGN_IN_NOT_POSSIBLE', 'set tools.oauth.encryptionKey first: herald keeps sign-ins encrypted with it');
    return this.deps.vault;
  }

  /** the SDK's OAuth errors, their text masked (an authorization server may echo a secret back) */
  private async guarded<T>(doing: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      if (error instanceof HeraldError || error instanceof SignInNeeded) throw error;
      const text = this.mask(error instanceof Error ? error.message : String(error));
      this.log.warn({ error: text }, `tool server sign-in: ${doing} failed`);
      throw new HeraldError('HERALD_SIGN_IN_FAILED', `${doing} failed: ${text}`);
    }
  }

  /** called by StoredProvider: a fresh random state for a person's sign-in */
  newState(): string {
    return randomBytes(24).toString('base64url');
  }

  noteSecret(secret: string | undefined): void {
    if (secret) this.masks.add(secret);
  }
}

/**
 * The SDK's view of herald's store for one `auth()` call. `begin`: a person's sign-in (stored
 * tokens are not offered, so the SDK starts the authorization code flow; the verifier waits in
 * the store under its `state`); `finish`: the browser's return (the verifier of its state);
 * `renew`: a refresh, or client credentials again, without a person.
 */
class StoredProvider implements OAuthClientProvider {
  authorizationUrl?: URL;
  private stateValue?: string;
  /** the client this auth() call acts as: the tokens it obtains are kept with it (below) */
  private client?: OAuthClientInformationMixed;
  /** client credentials: the SDK's own provider makes the token request and authenticates the client */
  readonly addClientAuthentication?: OAuthClientProvider['addClientAuthentication'];

  constructor(
    private readonly signIn: ServerSignIn,
    private readonly vault: OAuthVault,
    private readonly mode: 'begin' | 'finish' | 'renew',
    private readonly verifier?: string,
    private readonly machine?: OAuthClientProvider,
  ) {
    if (machine?.addClientAuthentication) this.addClientAuthentication = machine.addClientAuthentication.bind(machine);
  }

  get redirectUrl(): string | undefined {
    return this.machine ? undefined : this.signIn.redirectUrl;
  }

  get clientMetadataUrl(): string | undefined {
    return this.machine || this.signIn.configuredClient() ? undefined : this.signIn.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return this.machine ? this.machine.clientMetadata : this.signIn.clientMetadata(this.signIn.scope);
  }

  state(): string {
    return (this.stateValue ??= this.signIn.newState());
  }

  clientInformation(): OAuthClientInformationMixed | undefined | Promise<OAuthClientInformationMixed | undefined> {
    if (this.machine) return this.machine.clientInformation();
    return (this.client = this.signIn.configuredClient() ?? this.signIn.current()?.client);
  }

  prepareTokenRequest(scope?: string): URLSearchParams | Promise<URLSearchParams | undefined> | undefined {
    return this.machine?.prepareTokenRequest?.(scope);
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    // a client from config stays in config
    if (this.signIn.configuredClient()) return;
    this.signIn.noteSecret((client as { client_secret?: string }).client_secret);
    this.client = client;
    // a renewal without a person registers only to find nobody signed in: a client stored by a
    // person's sign-in (perhaps on another replica, its tokens on the way) is kept, not replaced
    await this.signIn.save(this.vault, (r) => (this.mode === 'renew' && r.client ? r : { ...r, client }));
  }

  tokens(): OAuthTokens | undefined {
    return this.mode === 'begin' ? undefined : this.signIn.current()?.tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    this.signIn.noteSecret(tokens.access_token);
    this.signIn.noteSecret(tokens.refresh_token);
    const now = Date.now();
    await this.signIn.save(this.vault, (r) => ({
      ...r,
      // tokens are issued to one client and refreshed by it alone: another replica's registration
      // stored meanwhile must not pair with them (its refresh would be refused as invalid_grant)
      ...(this.client && !this.machine && !this.signIn.configuredClient() && { client: this.client }),
      // a refresh that returns no new refresh token keeps the one it spent (RFC 6749 §6)
      tokens: { ...tokens, ...(tokens.refresh_token === undefined && r.tokens?.refresh_token !== undefined && { refresh_token: r.tokens.refresh_token }) },
      ...(tokens.expires_in !== undefined ? { expiresAt: now + tokens.expires_in * 1000, obtainedAt: now } : { expiresAt: undefined, obtainedAt: now }),
      version: r.version + 1,
    }));
  }

  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }

  async saveCodeVerifier(verifier: string): Promise<void> {
    // only a person's sign-in comes back: without one the verifier would wait for nothing
    if (this.mode !== 'begin') return;
    this.signIn.noteSecret(verifier);
    await this.vault.putPending(this.state(), { server: this.signIn.deps.server, verifier, expiresAt: Date.now() + PENDING_MS });
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error('no sign-in was started for this code');
    return this.verifier;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    await this.signIn.save(this.vault, (r) => {
      const out = { ...r };
      if (scope === 'all' || scope === 'client') delete out.client;
      if (scope === 'all' || scope === 'tokens') {
        delete out.tokens;
        delete out.expiresAt;
      }
      if (scope === 'all' || scope === 'discovery') delete out.discovery;
      return out;
    });
  }

  async saveDiscoveryState(discovery: OAuthDiscoveryState): Promise<void> {
    await this.signIn.save(this.vault, (r) => ({ ...r, discovery }));
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.signIn.current()?.discovery;
  }
}

export function clientMetadataOf(redirectUrl: string, scope?: string): OAuthClientMetadata {
  return {
    client_name: 'herald',
    redirect_uris: [redirectUrl],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...(scope && { scope }),
  };
}

function withBearer(init: RequestInit | undefined, token: string | undefined): RequestInit | undefined {
  if (!token) return init;
  const headers = new Headers(init?.headers);
  headers.set('authorization', `Bearer ${token}`);
  return { ...init, headers };
}

function unionScope(a: string | undefined, b: string | undefined): string | undefined {
  const all = new Set([...(a?.split(' ') ?? []), ...(b?.split(' ') ?? [])].filter(Boolean));
  return all.size ? [...all].join(' ') : undefined;
}

const withSlash = (url: string) => (url.endsWith('/') ? url : `${url}/`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
