import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** the version mark of a sealed value: a later scheme gets a new one, and old values still open */
const V1 = 'v1';

/**
 * Encrypts what a sign-in gives herald (tokens, a registered client's secret, a PKCE verifier)
 * before it reaches the store: AES-256-GCM with a key from `tools.oauth.encryptionKey`, so a
 * copy of the database alone gives nothing away. The key is hashed to 32 bytes (any long
 * random string serves); every replica opens what another sealed.
 */
export class SealedBox {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = createHash('sha256').update(`herald oauth:${secret}`).digest();
  }

  seal(value: unknown): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    return [V1, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
  }

  /** the value, or undefined when it was sealed with another key (or is not a sealed value) */
  open<T>(sealed: string): T | undefined {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== V1 || !iv || !tag || body === undefined) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      const text = Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
      return JSON.parse(text) as T;
    } catch {
      return undefined;
    }
  }
}
