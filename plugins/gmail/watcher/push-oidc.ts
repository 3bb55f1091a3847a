import { createPublicKey, verify, type JsonWebKey, type KeyObject } from 'node:crypto';
import { fetchText } from '../google/timed-fetch.js';

export interface PushOidcOptions {
  serviceAccountEmail: string;
  audience: string;
  jwksUrl: string;
}

/** the issuers Google signs ID tokens as (https://developers.google.com/identity/openid-connect/openid-connect#validatinganidtoken) */
const ISSUERS = new Set(['accounts.google.com', 'https://accounts.google.com']);
/** clock difference tolerated on exp / iat */
const SKEW_S = 60;
/** how soon an unknown `kid` may fetch the keys again (Google rotates them; a flood of bad tokens must not) */
const REFETCH_MIN_MS = 60_000;
const DEFAULT_KEYS_TTL_MS = 3_600_000;

export class PushAuthError extends Error {}

interface Jwk extends JsonWebKey {
  kid?: string;
  alg?: string;
}

/**
 * Verifies Pub/Sub's authenticated push: `Authorization: Bearer <JWT>`, an OIDC ID token Google
 * signs with RS256 (https://cloud.google.com/pubsub/docs/authenticate-push-subscriptions). The
 * signature is checked with node:crypto against Google's published JWKS (cached per their
 * Cache-Control max-age), then issuer, audience, expiry, `email` and `email_verified`.
 */
export class PushOidcVerifier {
  private keys = new Map<string, KeyObject>();
  private expiresAt = 0;
  private fetchedAt = 0;
  private fetching?: Promise<void>;

  constructor(private readonly options: PushOidcOptions) {}

  async verify(authorization: string | undefined, now = Date.now()): Promise<{ email: string }> {
    const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
    if (!token) throw new PushAuthError('no bearer token');
    const segments = token.split('.');
    if (segments.length !== 3) throw new PushAuthError('not a JWT');
    const [head, body, signature] = segments as [string, string, string];
    let header: { alg?: string; kid?: string };
    let claims: { iss?: string; aud?: string | string[]; exp?: number; iat?: number; email?: string; email_verified?: boolean | string };
    try {
      header = JSON.parse(Buffer.from(head, 'base64url').toString('utf8'));
      claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    } catch {
      throw new PushAuthError('unreadable JWT');
    }
    if (header.alg !== 'RS256') throw new PushAuthError(`algorithm ${String(header.alg)} not accepted`);
    const key = await this.key(header.kid, now);
    if (!verify('RSA-SHA256', Buffer.from(`${head}.${body}`), key, Buffer.from(signature, 'base64url'))) throw new PushAuthError('bad signature');
    if (!claims.iss || !ISSUERS.has(claims.iss)) throw new PushAuthError('wrong issuer');
    const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (!audiences.includes(this.options.audience)) throw new PushAuthError('wrong audience');
    const seconds = now / 1000;
    if (typeof claims.exp !== 'number' || claims.exp + SKEW_S < seconds) throw new PushAuthError('expired');
    if (typeof claims.iat === 'number' && claims.iat - SKEW_S > seconds) throw new PushAuthError('issued in the future');
    if (claims.email?.toLowerCase() !== this.options.serviceAccountEmail.toLowerCase()) throw new PushAuthError('wrong service account');
    if (claims.email_verified !== true && claims.email_verified !== 'true') throw new PushAuthError('email not verified');
    return { email: claims.email };
  }

  private async key(kid: string | undefined, now: number): Promise<KeyObject> {
    if (!kid) throw new PushAuthError('no key id');
    if (now >= this.expiresAt || (!this.keys.has(kid) && now - this.fetchedAt >= REFETCH_MIN_MS)) {
      this.fetching ??= this.fetchKeys(now).finally(() => (this.fetching = undefined));
      await this.fetching;
    }
    const key = this.keys.get(kid);
    if (!key) throw new PushAuthError('unknown key id');
    return key;
  }

  private async fetchKeys(now: number): Promise<void> {
    const answer = await fetchText(this.options.jwksUrl, { method: 'GET' }, 10_000);
    if (!answer.ok) throw new Error(`Google's signing keys answered ${answer.status}`);
    const { keys } = JSON.parse(answer.text) as { keys?: Jwk[] };
    const next = new Map<string, KeyObject>();
    for (const jwk of keys ?? []) {
      if (jwk.kty !== 'RSA' || !jwk.kid) continue;
      next.set(jwk.kid, createPublicKey({ key: jwk, format: 'jwk' }));
    }
    const maxAge = Number(/max-age=(\d+)/.exec(answer.headers.get('cache-control') ?? '')?.[1]);
    this.keys = next;
    this.fetchedAt = now;
    this.expiresAt = now + (Number.isFinite(maxAge) && maxAge > 0 ? maxAge * 1000 : DEFAULT_KEYS_TTL_MS);
  }
}
