import { createHash, timingSafeEqual } from 'node:crypto';

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/** digests of the expected secrets (a handful: the configured tokens), so each check hashes once */
const expectedDigests = new Map<string, Buffer>();

function expectedDigest(expected: string): Buffer {
  let digest = expectedDigests.get(expected);
  if (!digest) {
    if (expectedDigests.size >= 64) expectedDigests.clear(); // bounded, should secrets be rotated often
    digest = sha256(expected);
    expectedDigests.set(expected, digest);
  }
  return digest;
}

/** Compares secrets in constant time, whatever their lengths (both sides are hashed first). */
export function safeEqual(given: string, expected: string): boolean {
  return timingSafeEqual(sha256(given), expectedDigest(expected)) && given.length === expected.length;
}
