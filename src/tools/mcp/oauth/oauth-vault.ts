import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { StateRepo } from '../../../store/port.js';
import type { SealedBox } from './sealed-box.js';

/** what herald holds for one server's sign-in, opened */
export interface SignInRecord {
  /** the server's URL when it was signed in to: a record for another URL is not used */
  url: string;
  tokens?: OAuthTokens;
  /** epoch ms when the access token expires (from expires_in when it was saved) */
  expiresAt?: number;
  /** epoch ms when they were obtained (a short-lived token is refreshed a quarter of its life early) */
  obtainedAt?: number;
  /** a client herald registered (dynamic registration, or its metadata document's URL) */
  client?: OAuthClientInformationMixed;
  /** the server's and its authorization server's metadata, as the SDK found them */
  discovery?: OAuthDiscoveryState;
  /** the scope the server asked for last (its 401 or its 403 insufficient_scope) */
  scope?: string;
  /** bumped by every save of tokens: a replica tells a newer sign-in from the one it holds */
  version: number;
}

/** as stored: the secrets sealed, the rest plain */
interface StoredRecord extends Omit<SignInRecord, 'tokens' | 'client'> {
  tokens?: string;
  client?: string;
  /** a replica refreshing the tokens now, until when (epoch ms) */
  refreshing?: { owner: string; until: number };
}

/** a sign-in a person started: its PKCE verifier, waiting for the browser to come back with `state` */
export interface PendingSignIn {
  server: string;
  verifier: string;
  /** epoch ms after which the browser's return is refused */
  expiresAt: number;
}

interface StoredPending extends Omit<PendingSignIn, 'verifier'> {
  verifier: string;
}

const RECORD = 'tools.oauth.server:';
const PENDING = 'tools.oauth.pending:';

/**
 * Sign-ins kept in the store's small key/value state (the store port, on both adapters), so
 * every replica uses the same one and a restart keeps it. Tokens, registered clients and
 * verifiers are sealed (sealed-box.ts) before they are written; the state's atomic `update`
 * makes a pending sign-in one use and lets one replica at a time refresh.
 */
export class OAuthVault {
  constructor(
    private readonly state: StateRepo,
    private readonly box: SealedBox,
  ) {}

  async read(server: string): Promise<SignInRecord | undefined> {
    const stored = await this.state.get<StoredRecord>(RECORD + server);
    return stored ? this.opened(stored) : undefined;
  }

  /** changes a server's record atomically; `fn` gets the current one (undefined when none) */
  async change(server: string, url: string, fn: (current: SignInRecord | undefined) => SignInRecord): Promise<SignInRecord> {
    let out!: SignInRecord;
    await this.state.update<StoredRecord | null>(RECORD + server, (stored) => {
      const current = stored ? this.opened(stored) : undefined;
      out = fn(current?.url === url ? current : undefined);
      return { ...this.sealed(out), ...(stored?.refreshing && { refreshing: stored.refreshing }) };
    });
    return out;
  }

  /** forgets a server's sign-in */
  async forget(server: string): Promise<void> {
    await this.state.delete(RECORD + server);
  }

  /**
   * Takes the right to refresh a server's tokens for `ms`, unless another owner holds it:
   * replicas sharing a rotating refresh token must not both spend it. True when taken.
   */
  async claimRefresh(server: string, url: string, owner: string, ms: number): Promise<boolean> {
    let taken = false;
    const now = Date.now();
    await this.state.update<StoredRecord | null>(RECORD + server, (found) => {
      // a server never signed in to (or signed in to at another URL) starts from nothing
      const stored: StoredRecord = found?.url === url ? found : { url, version: found?.version ?? 0 };
      if (stored.refreshing && stored.refreshing.owner !== owner && stored.refreshing.until > now) return stored;
      taken = true;
      return { ...stored, refreshing: { owner, until: now + ms } };
    });
    return taken;
  }

  async releaseRefresh(server: string, owner: string): Promise<void> {
    await this.state.update<StoredRecord | null>(RECORD + server, (stored) => {
      if (!stored || stored.refreshing?.owner !== owner) return stored ?? null;
      const { refreshing: _, ...rest } = stored;
      return rest;
    });
  }

  async putPending(state: string, pending: PendingSignIn): Promise<void> {
    await this.state.set(PENDING + state, { ...pending, verifier: this.box.seal(pending.verifier) } satisfies StoredPending);
  }

  /** the pending sign-in of `state`, taken once: a second take, or one past its expiry, gets undefined */
  async takePending(state: string): Promise<PendingSignIn | undefined> {
    let taken: StoredPending | undefined;
    await this.state.update<StoredPending | null>(PENDING + state, (stored) => {
      taken = stored ?? undefined;
      return null;
    });
    await this.state.delete(PENDING + state);
    if (!taken || taken.expiresAt < Date.now()) return undefined;
    const verifier = this.box.open<string>(taken.verifier);
    return verifier === undefined ? undefined : { ...taken, verifier };
  }

  /** drops pending sign-ins nobody finished (older than `before`, epoch ms) */
  async dropStalePending(before: number): Promise<number> {
    return this.state.deleteOlderThan(PENDING, before);
  }

  private opened(stored: StoredRecord): SignInRecord {
    const { tokens, client, refreshing: _, ...rest } = stored;
    return {
      ...rest,
      ...(tokens !== undefined && { tokens: this.box.open<OAuthTokens>(tokens) }),
      ...(client !== undefined && { client: this.box.open<OAuthClientInformationMixed>(client) }),
    };
  }

  private sealed(record: SignInRecord): StoredRecord {
    const { tokens, client, ...rest } = record;
    return {
      ...rest,
      ...(tokens !== undefined && { tokens: this.box.seal(tokens) }),
      ...(client !== undefined && { client: this.box.seal(client) }),
    };
  }
}
