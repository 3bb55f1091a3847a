import { createHmac } from 'node:crypto';
import type { MappingAuth } from '../../config/sections/mapping-schema.js';
import type { SignatureVerifier } from './verifier.js';
import { encodedDigest, freshTimestamp, missingOr, sameDigest } from './signature-digest.js';

/** what each algorithm's digest is: its length, and the prefix a sender may write before it */
const algorithms = {
  'hmac-sha256': { hash: 'sha256', bytes: 32, prefix: 'sha256=' },
  'hmac-sha1': { hash: 'sha1', bytes: 20, prefix: 'sha1=' },
} as const;

export type HmacType = keyof typeof algorithms;

/**
 * The generic HMAC schemes, for a sender with no scheme of its own: the digest of the raw body
 * (or of a timestamp header's value followed by the body) with the secret, in a header of the
 * user's choice, hex or base64, with or without its `sha256=` / `sha1=` prefix.
 * - Intercom (https://developers.intercom.com/intercom-api-reference/v1.0/reference/signed-notifications):
 *   X-Hub-Signature `sha1=<hex HMAC-SHA1 of the body>`, the app's client secret as key.
 * - Vercel (https://vercel.com/docs/webhooks): x-vercel-signature,
 *   the hex HMAC-SHA1 of the body with the webhook's secret.
 * - Typeform (https://www.typeform.com/developers/webhooks/secure-your-webhooks/): Typeform-Signature
 *   `sha256=<base64 HMAC-SHA256 of the body>`.
 * - Zendesk (https://developer.zendesk.com/documentation/webhooks/verifying/): X-Zendesk-Webhook-Signature,
 *   `base64(HMACSHA256(TIMESTAMP + BODY))` with X-Zendesk-Webhook-Signature-Timestamp (ISO 8601).
 */
export function compileHmac(type: HmacType, auth: MappingAuth, secret: string, toleranceSeconds: number): SignatureVerifier {
  if (auth.header === undefined) throw new Error(`header: ${type} needs the header that carries the digest`);
  const { hash, bytes, prefix } = algorithms[type];
  const header = auth.header.toLowerCase();
  const encoding = auth.encoding ?? 'hex';
  const timestampHeader = auth.timestampHeader?.toLowerCase();
  const fresh = (headers: Record<string, string | undefined>, nowMs: number) =>
    timestampHeader === undefined || freshTimestamp(headers[timestampHeader], nowMs, toleranceSeconds);
  return {
    type,
    verify(headers, body, nowMs) {
      const given = encodedDigest(headers[header], encoding, bytes, prefix);
      if (given === undefined || !fresh(headers, nowMs)) return false;
      const mac = createHmac(hash, secret);
      if (timestampHeader !== undefined) mac.update(headers[timestampHeader]!);
      return sameDigest(given, mac.update(body).digest());
    },
    failure(headers, nowMs) {
      const missing = missingOr(headers[header]) ?? (timestampHeader === undefined ? undefined : missingOr(headers[timestampHeader]));
      return missing ?? (fresh(headers, nowMs) ? 'bad signature' : 'stale timestamp');
    },
  };
}
