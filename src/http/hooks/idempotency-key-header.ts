import type { Context } from 'hono';
import { HeraldError } from '../../errors.js';
import { IDEMPOTENCY_KEY_PATTERN } from '../../mappings/idempotency-key.js';

/** The request's `Idempotency-Key`, if any; a malformed one is a 400 naming the header. */
export function idempotencyKeyOf(c: Context): string | undefined {
  const value = c.req.header('idempotency-key');
  if (value === undefined) return undefined;
  const key = value.trim();
  // trimmed first, so spaces are allowed only inside
  if (!IDEMPOTENCY_KEY_PATTERN.test(key)) {
    throw new HeraldError('HERALD_BAD_REQUEST', 'Idempotency-Key must be 1 to 255 printable ASCII characters', { param: 'Idempotency-Key' });
  }
  return key;
}
