import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import type { StateRepo } from '../../store/port.js';

export const SESSION_COOKIE = 'herald_console';
export const CSRF_HEADER = 'x-csrf-token';
const REVOKED_PREFIX = 'console:signed-out:';

/** MACs of one length: compared in constant time (not through constant-time.ts, whose cache is for the few configured secrets) */
function macEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Console sessions without server-side session rows: the cookie is `<id>.<expiry>.<mac>`, its MAC
 * keyed by the gateway token, so every replica sharing the token accepts it and rotating the
 * token signs everyone out. Signing out records the id in the store (shared by replicas) until
 * it would have expired anyway. The CSRF token is a second MAC of the id: the page holds it in
 * memory and sends it in a header, which a cross-site form or image cannot.
 */
export class ConsoleSessions {
  private readonly key: Buffer;

  constructor(
    gatewayToken: string,
    private readonly ttlMs: number,
    private readonly state: StateRepo,
  ) {
    this.key = createHmac('sha256', gatewayToken).update('herald console session v1').digest();
  }

  private mac(text: string): string {
    return createHmac('sha256', this.key).update(text).digest('base64url');
  }

  /** a new session: the cookie value and its CSRF token */
  create(now = Date.now()): { cookie: string; csrf: string; expiresAt: number } {
    const id = randomBytes(18).toString('base64url');
    const expiresAt = now + this.ttlMs;
    return { cookie: `${id}.${expiresAt}.${this.mac(`${id}.${expiresAt}`)}`, csrf: this.csrfOf(id), expiresAt };
  }

  csrfOf(id: string): string {
    return this.mac(`csrf.${id}`);
  }

  /** the session of a request's cookie, when it is genuine, unexpired and not signed out */
  async verify(c: Context, now = Date.now()): Promise<{ id: string; expiresAt: number } | undefined> {
    const value = getCookie(c, SESSION_COOKIE);
    const parts = value?.split('.');
    if (!parts || parts.length !== 3) return undefined;
    const [id, exp, mac] = parts as [string, string, string];
    if (!macEqual(mac, this.mac(`${id}.${exp}`))) return undefined;
    const expiresAt = Number(exp);
    if (!Number.isFinite(expiresAt) || expiresAt <= now) return undefined;
    if (await this.state.get(REVOKED_PREFIX + id)) return undefined;
    return { id, expiresAt };
  }

  /** the request's CSRF header matches its session */
  csrfValid(c: Context, sessionId: string): boolean {
    const presented = c.req.header(CSRF_HEADER);
    return presented !== undefined && macEqual(presented, this.csrfOf(sessionId));
  }

  async revoke(id: string, now = Date.now()): Promise<void> {
    await this.state.set(REVOKED_PREFIX + id, true);
    // sign-outs older than a session's life can be forgotten: their cookies have expired
    await this.state.deleteOlderThan(REVOKED_PREFIX, now - this.ttlMs);
  }
}
