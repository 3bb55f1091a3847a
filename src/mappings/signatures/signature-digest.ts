import { createHmac, timingSafeEqual } from 'node:crypto';

/** The pieces every signature scheme is made of: a digest, its encodings, a timestamp window. */

import type { CertRefusal } from './paypal-cert-trust.js';

export type SignatureFailure = 'missing signature' | 'stale timestamp' | 'bad signature' | CertRefusal;

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

/**
 * A digest of `bytes` bytes written in `encoding`, after an optional `<algorithm>=` prefix
 * (`sha1=` for Intercom, `sha256=` for Typeform); undefined when it is not one (wrong length,
 * wrong alphabet), so a malformed header never reaches the comparison.
 */
export function encodedDigest(value: string | undefined, encoding: 'hex' | 'base64', bytes: number, prefix: string): Buffer | undefined {
  let text = value?.trim();
  if (text === undefined) return undefined;
  if (text.slice(0, prefix.length).toLowerCase() === prefix) text = text.slice(prefix.length);
  if (encoding === 'hex') return text.length === bytes * 2 && /^[0-9a-f]+$/i.test(text) ? Buffer.from(text, 'hex') : undefined;
  const decoded = /^[A-Za-z0-9+/]+={0,2}$/.test(text) ? Buffer.from(text, 'base64') : undefined;
  return decoded?.length === bytes && decoded.toString('base64') === text ? decoded : undefined;
}

/** `timestamp`: unix seconds, as text */
export function withinTolerance(timestamp: string | undefined, nowMs: number, toleranceSeconds: number): boolean {
  if (timestamp === undefined || !/^\d{1,12}$/.test(timestamp.trim())) return false;
  return Math.abs(nowMs / 1000 - Number(timestamp)) <= toleranceSeconds;
}

/**
 * A signed timestamp header as unix milliseconds: unix seconds (up to 11 digits), unix
 * milliseconds (12 or 13 digits, HubSpot's) or ISO 8601 with a zone (Zendesk's
 * `2021-03-25T05:09:27Z`); undefined for anything else.
 */
export function timestampMs(value: string | undefined): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d{1,11}$/.test(text)) return Number(text) * 1000;
  if (/^\d{12,13}$/.test(text)) return Number(text);
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)$/i.test(text)) return undefined;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : undefined;
}

/** a timestamp (any form `timestampMs` reads) within `toleranceSeconds` of now, in either direction */
export function freshTimestamp(value: string | undefined, nowMs: number, toleranceSeconds: number): boolean {
  const ms = timestampMs(value);
  return ms !== undefined && Math.abs(nowMs - ms) <= toleranceSeconds * 1000;
}
