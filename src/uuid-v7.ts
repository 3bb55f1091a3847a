import { randomUUID } from 'node:crypto';

/**
 * A UUID v7 (RFC 9562): the first 48 bits are the Unix time in milliseconds, the rest random.
 * Rows keyed by it are inserted in key order, at the right edge of the primary-key index, instead
 * of at random pages as v4 keys are. Built on `randomUUID()` (which draws from a cached entropy
 * pool): its 74 random bits after the version are kept, its first 48 replaced by the time and its
 * version nibble set to 7; the variant bits are already RFC 9562's.
 */
export function uuidV7(now = Date.now()): string {
  const random = randomUUID();
  const time = now.toString(16).padStart(12, '0');
  return `${time.slice(0, 8)}-${time.slice(8)}-7${random.slice(15)}`;
}
