import { timingSafeEqual } from 'node:crypto';

/** the expected secrets as bytes (a handful: the configured tokens), encoded once, not per check */
const expectedBytes = new Map<string, Buffer>();

function encoded(expected: string): Buffer {
  let bytes = expectedBytes.get(expected);
  if (!bytes) {
    if (expectedBytes.size >= 64) expectedBytes.clear(); // bounded, should secrets be rotated often
    bytes = Buffer.from(expected, 'utf8');
    expectedBytes.set(expected, bytes);
  }
  return bytes;
}

/**
 * Compares secrets in constant time, whatever their lengths. The given secret is copied into a
 * zeroed buffer of the expected secret's length (cut or padded), compared with `timingSafeEqual`,
 * and only then are the lengths compared: the time depends on the expected length alone, never on
 * where the given secret differs or how long it is, and a prefix of the secret (padded with NULs)
 * never passes, since its length differs.
 */
export function safeEqual(given: string, expected: string): boolean {
  const want = encoded(expected);
  const got = Buffer.alloc(want.byteLength);
  const written = got.write(given, 'utf8');
  const sameBytes = timingSafeEqual(got, want);
  return sameBytes && written === want.byteLength && Buffer.byteLength(given, 'utf8') === want.byteLength;
}
