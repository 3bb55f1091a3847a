import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { HeraldError } from '../errors.js';
import type { StateRepo } from '../store/port.js';

/** a client registered with herald's authorization server (RFC 7591's metadata, as the client sent it) */
export interface GrantClient {
  client_id: string;
  redirect_uris: string[];
  client_name?: string;
  client_uri?: string;
  [field: string]: unknown;
}

/** an authorization request waiting for a person's consent on the console */
export interface PendingAuthorization {
  id: string;
  clientId: string;
  clientName: string;
  redirectUri: string;
  codeChallenge: string;
  state?: string;
  resource: string;
  createdAt: number;
}

/** a person's consent: the client holds one API key's grants through it until revoked */
export interface McpGrant {
  id: string;
  clientId: string;
  clientName: string;
  /** the API key whose agents and tools the client receives */
  key: string;
  /** the audience of its tokens (`<origin>/mcp`) */
  resource: string;
  createdAt: number;
  /** its last refresh (or its consent) */
  refreshedAt: number;
  accessHash: string;
  accessExpiresAt: number;
  refreshHash: string;
  refreshExpiresAt: number;
}

interface AuthorizationCode {
  grantKey: string;
  clientId: string;
  clientName: string;
  redirectUri: string;
  codeChallenge: string;
  resource: string;
  expiresAt: number;
  used?: boolean;
}

/** the tokens a client receives (RFC 6749 §5.1) */
export interface IssuedTokens {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
}

/** what a valid access token stands for */
export interface GrantedAccess {
  grantId: string;
  clientId: string;
  key: string;
  resource: string;
  expiresAt: number;
}

/** access and refresh tokens say what they are, so /mcp tells them from API keys without a lookup */
export const ACCESS_TOKEN_PREFIX = 'hmcp_at_';
const REFRESH_TOKEN_PREFIX = 'hmcp_rt_';
/** a person has this long to consent, and a client this long to exchange its code (RFC 6749 §4.1.2 advises 10 minutes at most) */
const PENDING_MS = 10 * 60_000;
/** clients registered but never consented to are forgotten after a day, so registrations cannot pile up */
const UNUSED_CLIENT_MS = 24 * 3_600_000;

const P = {
  client: 'mcp-oauth:client:',
  request: 'mcp-oauth:request:',
  code: 'mcp-oauth:code:',
  grant: 'mcp-oauth:grant:',
  access: 'mcp-oauth:access:',
  refresh: 'mcp-oauth:refresh:',
};

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** two hex digests of the same length compared in constant time (no early exit on the first differing byte) */
const sameDigest = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));

/** what `checkClientSecret` found: `public` clients (token_endpoint_auth_method none) send no secret */
export type ClientSecretCheck = 'ok' | 'public' | 'unknown' | 'missing' | 'wrong' | 'expired';
const secret = (prefix: string) => `${prefix}${randomBytes(32).toString('base64url')}`;

export interface McpGrantsOptions {
  state: StateRepo;
  accessTokenMinutes: () => number;
  refreshTokenDays: () => number;
  now?: () => number;
}

/**
 * herald's OAuth grants for /mcp (platform.mcp.oauth), kept in the store's state (shared by
 * replicas): registered clients, authorization requests waiting for a person, one-use codes,
 * and the grants a person consented to. Tokens are kept as their SHA-256 only; an access
 * token names its audience (`<origin>/mcp`) and the API key whose grants it carries.
 */
export class McpGrants {
  private readonly now: () => number;

  constructor(private readonly options: McpGrantsOptions) {
    this.now = options.now ?? Date.now;
  }

  private get state(): StateRepo {
    return this.options.state;
  }

  /**
   * Keeps a registration; a confidential client's secret is kept as its SHA-256 only (the client
   * is answered its secret once, in the registration's response). SHA-256 without salt or
   * stretching is enough here: the SDK generates the secret (32 random bytes), so there is no
   * low-entropy password for a salted, slow hash to protect against guessing.
   */
  async registerClient(client: GrantClient): Promise<GrantClient> {
    await this.forgetUnusedClients();
    const { client_secret, ...rest } = client as GrantClient & { client_secret?: string };
    await this.state.set(P.client + client.client_id, client_secret ? { ...rest, client_secret_sha256: sha256(client_secret) } : rest);
    return client;
  }

  /**
   * A registered client without its secret in any form: the secret is checked by
   * `checkClientSecret` (the token and revocation endpoints), never by comparing stored text.
   */
  async client(clientId: string): Promise<GrantClient | undefined> {
    const stored = await this.state.get<GrantClient>(P.client + clientId);
    if (!stored) return undefined;
    const { client_secret: _plain, client_secret_sha256: _hash, ...client } = stored;
    return client;
  }

  /**
   * A client's authentication at the token and revocation endpoints (RFC 6749 §2.3.1,
   * client_secret_post): `public` when it registered no secret, else whether the secret sent
   * matches, compared in constant time. A registration kept before secrets were hashed (its
   * secret in plain text) is checked by the same digest comparison, and then kept hashed.
   */
  async checkClientSecret(clientId: string, sent: string | undefined): Promise<ClientSecretCheck> {
    const stored = await this.state.get<GrantClient & { client_secret?: string; client_secret_sha256?: string; client_secret_expires_at?: number }>(P.client + clientId);
    if (!stored) return 'unknown';
    const kept = stored.client_secret_sha256 ?? (stored.client_secret ? sha256(stored.client_secret) : undefined);
    if (!kept) return 'public';
    if (!sent) return 'missing';
    if (!sameDigest(kept, sha256(sent))) return 'wrong';
    if (stored.client_secret_expires_at && stored.client_secret_expires_at < Math.floor(this.now() / 1000)) return 'expired';
    if (stored.client_secret !== undefined) {
      const { client_secret: _plain, ...rest } = stored;
      await this.state.set(P.client + clientId, { ...rest, client_secret_sha256: kept });
    }
    return 'ok';
  }

  /** an authorization request the SDK validated (client, redirect URI, PKCE), kept until a person answers it */
  async request(input: Omit<PendingAuthorization, 'id' | 'createdAt'>): Promise<PendingAuthorization> {
    const now = this.now();
    await this.state.deleteOlderThan(P.request, now - PENDING_MS);
    await this.state.deleteOlderThan(P.code, now - PENDING_MS);
    const pending = { ...input, id: randomBytes(18).toString('base64url'), createdAt: now };
    await this.state.set(P.request + pending.id, pending);
    return pending;
  }

  async pending(id: string): Promise<PendingAuthorization> {
    const pending = await this.state.get<PendingAuthorization>(P.request + id);
    if (!pending || pending.createdAt < this.now() - PENDING_MS) throw new HeraldError('HERALD_SIGN_IN_STATE', 'this authorization request is unknown, answered already or older than 10 minutes: start the connection again from the client');
    return pending;
  }

  /**
   * A person's answer: with a key, a one-use code for the client (its redirect URI with `code`
   * and `state`); without, the client is told access_denied. The request is answered once.
   */
  async answer(id: string, key: string | undefined): Promise<{ redirectTo: string }> {
    const pending = await this.pending(id);
    await this.state.delete(P.request + id);
    const to = new URL(pending.redirectUri);
    if (key === undefined) {
      to.searchParams.set('error', 'access_denied');
      to.searchParams.set('error_description', 'a person declined the connection on herald');
    } else {
      const code = secret('hmcp_code_');
      const record: AuthorizationCode = {
        grantKey: key,
        clientId: pending.clientId,
        clientName: pending.clientName,
        redirectUri: pending.redirectUri,
        codeChallenge: pending.codeChallenge,
        resource: pending.resource,
        expiresAt: this.now() + PENDING_MS,
      };
      await this.state.set(P.code + sha256(code), record);
      to.searchParams.set('code', code);
    }
    if (pending.state !== undefined) to.searchParams.set('state', pending.state);
    return { redirectTo: to.href };
  }

  /** the PKCE challenge of a client's unexpired code */
  async challenge(clientId: string, code: string): Promise<string> {
    const record = await this.state.get<AuthorizationCode>(P.code + sha256(code));
    if (!record || record.used || record.clientId !== clientId || record.expiresAt <= this.now()) throw invalidGrant('the authorization code is unknown, used or expired');
    return record.codeChallenge;
  }

  /** the code, used once (the store's update decides between two racing exchanges), for a new grant and its tokens */
  async exchangeCode(clientId: string, code: string, redirectUri: string | undefined, resource: string): Promise<IssuedTokens> {
    const codeKey = P.code + sha256(code);
    let taken: AuthorizationCode | undefined;
    await this.state.update<AuthorizationCode | undefined>(codeKey, (current) => {
      taken = current && !current.used ? current : undefined;
      return current && { ...current, used: true };
    });
    await this.state.delete(codeKey);
    if (!taken || taken.clientId !== clientId || taken.expiresAt <= this.now()) throw invalidGrant('the authorization code is unknown, used or expired');
    if (redirectUri !== undefined && redirectUri !== taken.redirectUri) throw invalidGrant('redirect_uri differs from the authorization request');
    if (taken.resource !== resource) throw invalidGrant(`resource: the code was issued for ${taken.resource}`);
    const now = this.now();
    const grant = { id: randomBytes(12).toString('base64url'), clientId, clientName: taken.clientName, key: taken.grantKey, resource, createdAt: now };
    return this.issue(grant, undefined);
  }

  /** a new access token and a new refresh token for a grant's refresh token (the old one stops working) */
  async refresh(clientId: string, refreshToken: string, resource: string | undefined): Promise<IssuedTokens> {
    const grantId = await this.state.get<string>(P.refresh + sha256(refreshToken));
    const grant = grantId ? await this.state.get<McpGrant>(P.grant + grantId) : undefined;
    if (!grant || grant.clientId !== clientId || grant.refreshHash !== sha256(refreshToken) || grant.refreshExpiresAt <= this.now()) throw invalidGrant('the refresh token is unknown, revoked or expired');
    if (resource !== undefined && resource !== grant.resource) throw invalidGrant(`resource: the grant is for ${grant.resource}`);
    return this.issue(grant, grant);
  }

  private async issue(grant: Pick<McpGrant, 'id' | 'clientId' | 'clientName' | 'key' | 'resource' | 'createdAt'>, previous: McpGrant | undefined): Promise<IssuedTokens> {
    const now = this.now();
    const access = secret(ACCESS_TOKEN_PREFIX);
    const refresh = secret(REFRESH_TOKEN_PREFIX);
    const accessMs = this.options.accessTokenMinutes() * 60_000;
    const next: McpGrant = { ...grant, refreshedAt: now, accessHash: sha256(access), accessExpiresAt: now + accessMs, refreshHash: sha256(refresh), refreshExpiresAt: now + this.options.refreshTokenDays() * 86_400_000 };
    if (previous) {
      // two refreshes racing with one token: the first rotates it, the second finds it gone
      let rotated = false;
      await this.state.update<McpGrant | undefined>(P.grant + grant.id, (current) => {
        rotated = current?.refreshHash === previous.refreshHash;
        return rotated ? next : current;
      });
      if (!rotated) throw invalidGrant('the refresh token is unknown, revoked or expired');
      await this.state.delete(P.access + previous.accessHash);
      await this.state.delete(P.refresh + previous.refreshHash);
    } else {
      await this.state.set(P.grant + grant.id, next);
    }
    await this.state.set(P.access + next.accessHash, grant.id);
    await this.state.set(P.refresh + next.refreshHash, grant.id);
    return { access_token: access, token_type: 'Bearer', expires_in: Math.floor(accessMs / 1000), refresh_token: refresh };
  }

  /** what an access token stands for, when it is one of a live grant and unexpired */
  async verify(token: string): Promise<GrantedAccess | undefined> {
    if (!token.startsWith(ACCESS_TOKEN_PREFIX)) return undefined;
    const hash = sha256(token);
    const grantId = await this.state.get<string>(P.access + hash);
    const grant = grantId ? await this.state.get<McpGrant>(P.grant + grantId) : undefined;
    if (!grant || grant.accessHash !== hash || grant.accessExpiresAt <= this.now()) return undefined;
    return { grantId: grant.id, clientId: grant.clientId, key: grant.key, resource: grant.resource, expiresAt: grant.accessExpiresAt };
  }

  /** the grants, newest first (their tokens' hashes left out) */
  async list(): Promise<Omit<McpGrant, 'accessHash' | 'refreshHash'>[]> {
    const rows = await this.state.list<McpGrant>(P.grant);
    return rows
      .map(({ value: { accessHash: _a, refreshHash: _r, ...shown } }) => shown)
      .sort((a, b) => b.createdAt - a.createdAt);
  }

  /** ends a grant: its access and refresh tokens stop working at once; false when there was none */
  async revoke(grantId: string): Promise<boolean> {
    const grant = await this.state.get<McpGrant>(P.grant + grantId);
    if (!grant) return false;
    await this.state.delete(P.grant + grantId);
    await this.state.delete(P.access + grant.accessHash);
    await this.state.delete(P.refresh + grant.refreshHash);
    return true;
  }

  /** RFC 7009: a client revoking one of its tokens ends its grant; an unknown token is no error */
  async revokeToken(clientId: string, token: string): Promise<void> {
    const hash = sha256(token);
    const grantId = (await this.state.get<string>(P.access + hash)) ?? (await this.state.get<string>(P.refresh + hash));
    const grant = grantId ? await this.state.get<McpGrant>(P.grant + grantId) : undefined;
    if (grant && grant.clientId === clientId) await this.revoke(grant.id);
  }

  private async forgetUnusedClients(): Promise<void> {
    const used = new Set((await this.state.list<McpGrant>(P.grant)).map((g) => g.value.clientId));
    const clients = await this.state.list<GrantClient & { client_id_issued_at?: number }>(P.client);
    const before = this.now() - UNUSED_CLIENT_MS;
    for (const { key, value } of clients) {
      if (!used.has(value.client_id) && (value.client_id_issued_at ?? 0) * 1000 < before) await this.state.delete(key);
    }
  }
}

const invalidGrant = (message: string) => new HeraldError('HERALD_OAUTH_INVALID_GRANT', message);
