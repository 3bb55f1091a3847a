import { timingSafeEqual } from 'node:crypto';

/**
 * Per expected secret (a handful: the configured tokens), its bytes, encoded once, and a buffer
 * of their length the given secret is copied into: an allocation per check would cost more than
 * the comparison. Checks are synchronous, so one buffer per secret is never shared.
 */
const secrets = new Map<string, { want: Buffer; scratch: Buffer }>();

function secret(expected: string): { want: Buffer; scratch: Buffer } {
  let found = secrets.get(expected);
  if (!found) {
    if (secrets.size >= 64) secrets.clear(); // bounded, should secrets be rotated often
    const want = Buffer.from(expected, 'utf8');
    found = { want, scratch: Buffer.alloc(want.byteLength) };
    secrets.set(expected, found);
  }
  return found;
}

/**
 * Compares secrets in constant time, whatever their lengths. The given secret is copied into a
 * zeroed buffer of the expected secret's length (cut or padded), compared with `timingSafeEqual`,
 * and only then are the lengths compared: the time depends on the expected length alone, never on
 * where the given secret differs or how long it is, and a prefix of the secret (padded with NULs)
 * never passes, since its length differs.
 */
export function safeEqual(given: string, expected: string): boolean {
  const { want, scratch: got } = secret(expected);
  got.fill(0);
  const written = got.write(given, 'utf8');
  const sameBytes = timingSafeEqual(got, want);
  return sameBytes && written === want.byteLength && Buffer.byteLength(given, 'utf8') === want.byteLength;
}
