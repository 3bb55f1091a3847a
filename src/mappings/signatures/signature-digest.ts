import { createHmac, timingSafeEqual } from 'node:crypto';

/** The pieces every signature scheme is made of: a digest, its encodings, a timestamp window. */

export type SignatureFailure = 'missing signature' | 'stale timestamp' | 'bad signature';

export const missingOr = (value: string | undefined): SignatureFailure | undefined => (value === undefined || value.trim() === '' ? 'missing signature' : undefined);

const HEX_DIGEST = /^[0-9a-f]{64}$/i;
const BASE64_DIGEST = /^[A-Za-z0-9+/]{43}=$/;

/** constant time for equal lengths; a digest's length is public (32 bytes), its bytes are not */
export function sameDigest(given: Buffer, expected: Buffer): boolean {
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export function hmac(key: string | Buffer, prefix: string, body: Uint8Array): Buffer {
  return createHmac('sha256', key).update(prefix).update(body).digest();
}

/** a hex SHA-256 digest, with or without a `sha256=` prefix */
export function hexDigest(value: string | undefined): Buffer | undefined {
  const hex = value?.trim().replace(/^sha256=/i, '');
  return hex !== undefined && HEX_DIGEST.test(hex) ? Buffer.from(hex, 'hex') : undefined;
}

/** a base64 SHA-256 digest (44 characters, one `=`) */
export function base64Digest(value: string | undefined): Buffer | undefined {
  const text = value?.trim();
  return text !== undefined && BASE64_DIGEST.test(text) ? Buffer.from(text, 'base64') : undefined;
}

/** `timestamp`: unix seconds, as text */
export function withinTolerance(timestamp: string | undefined, nowMs: number, toleranceSeconds: number): boolean {
  if (timestamp === undefined || !/^\d{1,12}$/.test(timestamp.trim())) return false;
  return Math.abs(nowMs / 1000 - Number(timestamp)) <= toleranceSeconds;
}
