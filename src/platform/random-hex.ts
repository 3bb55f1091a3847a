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
