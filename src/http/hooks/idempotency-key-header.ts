import { HeraldError } from '../../errors.js';
import { IDEMPOTENCY_KEY_PATTERN, storableIdempotencyKey } from '../../mappings/idempotency-key.js';

/** the headers a key may come in, in OpenClaw's order: the standard one wins */
const KEY_HEADERS = ['Idempotency-Key', 'X-OpenClaw-Idempotency-Key'].map((name) => ({ name, lowerCase: name.toLowerCase() }));

/** The request's `Idempotency-Key` (else `X-OpenClaw-Idempotency-Key`), if any; a malformed one is a 400 naming the header. */
export function idempotencyKeyOf(headers: Readonly<Record<string, string>>): string | undefined {
  for (const { name: header, lowerCase } of KEY_HEADERS) {
    const value = headers[lowerCase];
    if (value === undefined) continue;
    const key = value.trim();
    // trimmed first, so spaces are allowed only inside
    if (!IDEMPOTENCY_KEY_PATTERN.test(key)) {
      throw new HeraldError('HERALD_BAD_REQUEST', `${header} must be 1 to 255 printable ASCII characters`, { param: header });
    }
    return key;
  }
  return undefined;
}

/**
 * OpenClaw also reads the key from an `idempotencyKey` field of the `/agent` body (after both
 * headers). Only there: a mapped hook's payload is the sender's own format, whose fields herald
 * does not interpret (a mapping's `idempotencyKey` template names the sender's delivery id).
 */
export function bodyIdempotencyKey(path: string, payload: unknown): string | undefined {
  if (path !== 'agent' || !payload || typeof payload !== 'object' || !('idempotencyKey' in payload)) return undefined;
  const value = (payload as { idempotencyKey: unknown }).idempotencyKey;
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new HeraldError('HERALD_INVALID_FIELD', 'idempotencyKey must be a string', { param: 'idempotencyKey' });
  return storableIdempotencyKey(value);
}
