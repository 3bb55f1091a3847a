import { createHash } from 'node:crypto';

/** What an `Idempotency-Key` may be: 1..255 printable ASCII characters (space allowed inside). */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

/**
 * A mapping's rendered `idempotencyKey` as a stored key: trimmed; empty means "no key". A value a
 * header could not carry (longer than 255, or not printable ASCII) becomes `sha256:<hex>` of it,
 * still stable per delivery: the sender chose the id, not its length or alphabet, so refusing the
 * request would refuse every delivery.
 */
export function storableIdempotencyKey(rendered: string): string | undefined {
  const key = rendered.trim();
  if (!key) return undefined;
  if (IDEMPOTENCY_KEY_PATTERN.test(key)) return key;
  return `sha256:${createHash('sha256').update(key).digest('hex')}`;
}
