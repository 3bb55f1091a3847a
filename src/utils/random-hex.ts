import { randomFillSync } from 'node:crypto';

// one getrandom call per 4 KiB of ids instead of one per id (as crypto.randomUUID does)
const POOL_BYTES = 4096;
const pool = Buffer.allocUnsafe(POOL_BYTES);
let used = POOL_BYTES;

/** `bytes` cryptographically random bytes as hex, drawn from a pool refilled by the CSPRNG */
export function randomHex(bytes: number): string {
  if (bytes > POOL_BYTES) return randomFillSync(Buffer.allocUnsafe(bytes)).toString('hex');
  if (used + bytes > POOL_BYTES) {
    randomFillSync(pool);
    used = 0;
  }
  const hex = pool.toString('hex', used, used + bytes);
  used += bytes;
  return hex;
}

/**
 * `bytes` bytes as hex, the first six the Unix time in milliseconds and the rest random (as a
 * UUID v7): ids made in time order are appended to the store's indexes instead of landing on a
 * random page each (a conversation's first messages cost half as much to write). The random part
 * (`bytes` - 6, at least six) is what makes two ids of one millisecond differ, and unguessable.
 */
export function timeOrderedHex(bytes: number, now = Date.now()): string {
  return now.toString(16).padStart(12, '0').slice(-12) + randomHex(bytes - 6);
}
