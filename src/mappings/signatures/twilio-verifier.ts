import { createHash, createHmac } from 'node:crypto';
import type { SignatureVerifier } from './verifier.js';
import { missingOr, sameDigest } from './signature-digest.js';

const SETTINGS = 'x-twilio-webhooks-signature-settings';

/**
 * Twilio (https://www.twilio.com/docs/usage/security#validating-requests): X-Twilio-Signature is
 * the base64 HMAC-SHA1, with the account's auth token, of the text `twilioSignedText` builds.
 * A URL a Webhook Rule matches is signed instead with the SharedKey of its Webhook Setting and
 * the Setting's algorithm, and the request says so in X-Twilio-Webhooks-Signature-Settings:
 * `key=<SharedKey id>,algorithm=HMAC_SHA256` (https://www.twilio.com/docs/usage/webhooks/webhook-shared-keys);
 * only the hash and the key change, not the signed text. Such a request is verified with
 * `sharedKey` alone (never the auth token), as twilio's own `webhook()` does.
 */
export function compileTwilio(authToken: string | undefined, sharedKey: string | undefined, configuredUrl: string | undefined): SignatureVerifier {
  if (authToken === undefined && sharedKey === undefined) throw new Error('secret: twilio needs the auth token (secret), or a Webhook Setting\'s sharedKey');
  return {
    type: 'twilio',
    verify(headers, body, _nowMs, url) {
      const given = headers['x-twilio-signature']?.trim();
      const signedUrl = configuredUrl ?? url;
      if (!given || !signedUrl) return false;
      const settings = headers[SETTINGS];
      const hash = settings === undefined ? 'sha1' : signatureAlgorithm(settings);
      const key = settings === undefined ? authToken : sharedKey;
      if (hash === undefined || key === undefined) return false;
      const expected = createHmac(hash, key).update(twilioSignedText(signedUrl, headers['content-type'], body)).digest();
      return sameDigest(Buffer.from(given, 'base64'), expected);
    },
    failure(headers) {
      return missingOr(headers['x-twilio-signature']) ?? 'bad signature';
    },
  };
}

/** the hash a Signature Settings header names (HMAC_SHA1 or HMAC_SHA256); undefined for any other */
function signatureAlgorithm(settings: string): 'sha1' | 'sha256' | undefined {
  for (const part of settings.split(',')) {
    const [name, value] = part.split('=', 2).map((s) => s?.trim());
    if (name?.toLowerCase() !== 'algorithm') continue;
    if (value?.toUpperCase() === 'HMAC_SHA256') return 'sha256';
    if (value?.toUpperCase() === 'HMAC_SHA1') return 'sha1';
    return undefined;
  }
  // no algorithm named: Twilio's default
  return 'sha1';
}

/**
 * What Twilio signs (https://www.twilio.com/docs/usage/security#validating-requests): the full
 * URL, then for a form body each field name followed by its value, sorted by name (repeated
 * names: each value, sorted), with no separators. A JSON body is signed through the URL: its
 * `bodySHA256` query parameter must be the hex SHA-256 of the raw body.
 */
export function twilioSignedText(url: string, contentType: string | undefined, body: Uint8Array): string {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    const declared = new URL(url).searchParams.get('bodySHA256');
    const actual = createHash('sha256').update(body).digest('hex');
    // a mismatch signs a text Twilio never signed, so the comparison fails
    return declared !== null && declared.toLowerCase() === actual ? url : `${url}\n(body does not match bodySHA256)`;
  }
  const params = new URLSearchParams(Buffer.from(body).toString('utf8'));
  const names = [...new Set(params.keys())].sort();
  return url + names.map((name) => [...new Set(params.getAll(name))].sort().map((value) => name + value).join('')).join('');
}
