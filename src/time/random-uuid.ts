import { randomFillSync } from 'node:crypto';

// one getrandom call per 256 ids, as crypto.randomUUID draws from its own cached pool
const POOL_BYTES = 16 * 256;
const pool = Buffer.allocUnsafe(POOL_BYTES);
let used = POOL_BYTES;
/** the id's text is written here, then read out as one string */
const text = Buffer.allocUnsafe(36);
const HEX = Buffer.from('0123456789abcdef', 'latin1');

/**
 * A random UUID v4 (RFC 9562), as `crypto.randomUUID()` makes it: 122 bits from the CSPRNG, the
 * version and variant bits set, lower-case hex with dashes. Written byte by byte into a buffer
 * read out as one string: `randomUUID()` builds its text from twenty string concatenations, about
 * ten times the garbage, and a webhook request makes several ids (its request id, its run's,
 * its made-up session key, its receipt's).
 */
export function randomUuid(): string {
  if (used === POOL_BYTES) {
    randomFillSync(pool);
    used = 0;
  }
  const at = used;
  used += 16;
  let out = 0;
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) text[out++] = 0x2d;
    let byte = pool[at + i]!;
    if (i === 6) byte = (byte & 0x0f) | 0x40;
    else if (i === 8) byte = (byte & 0x3f) | 0x80;
    text[out++] = HEX[byte >> 4]!;
    text[out++] = HEX[byte & 15]!;
  }
  return text.toString('latin1', 0, 36);
}
