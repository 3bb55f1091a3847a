import { createHash, createHmac } from 'node:crypto';
import type { MappingAuth } from '../../config/mapping-schema.js';
import { compileBodySignature } from './body-signature-verifiers.js';
import { hexDigest, hmac, missingOr, sameDigest, withinTolerance, type SignatureFailure } from './signature-digest.js';
import { compileSharedToken } from './token-verifiers.js';
import { compileSenderSignature, isSenderSignatureType } from './sender-verifiers.js';

export type { SignatureFailure } from './signature-digest.js';

export const DEFAULT_TOLERANCE_SECONDS = 300;

/** the schemes that sign a timestamp, so `toleranceSeconds` means something */
const TIMESTAMPED = new Set<MappingAuth['type']>(['stripe', 'standard-webhooks', 'slack', 'linear']);

/** A mapping's `auth`, compiled at load: checks a request's signature over its raw body. */
export interface SignatureVerifier {
  type: MappingAuth['type'];
  /**
   * true when the signature headers (names lower-cased) verify over the exact bytes received;
   * `url`: the full request URL with its query (Twilio signs it)
   */
  verify(headers: Record<string, string | undefined>, body: Uint8Array, nowMs: number, url?: string): boolean;
  /** why `verify` said no, for the log (it never says what was expected); `body` for schemes that sign a timestamp inside it */
  failure(headers: Record<string, string | undefined>, nowMs: number, body?: Uint8Array): SignatureFailure;
}

/**
 * Compiles a mapping's `auth`. Throws (a config fault, reported with the mapping id) when the
 * fields do not fit the type: a header for anything but hmac-sha256, a tolerance where no
 * timestamp is signed, a standard-webhooks secret that is not `whsec_<base64>`.
 */
export function compileSignatureVerifier(auth: MappingAuth): SignatureVerifier {
  const { type, secret } = auth;
  if (auth.header !== undefined && type !== 'hmac-sha256') throw new Error(`header: only for type hmac-sha256 (${type} has its own header)`);
  if (auth.toleranceSeconds !== undefined && !TIMESTAMPED.has(type)) {
    throw new Error(`toleranceSeconds: ${type} signs no timestamp`);
  }
  if (auth.url !== undefined && type !== 'twilio') throw new Error(`url: only for type twilio (${type} does not sign the URL)`);
  const tolerance = auth.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (type === 'gitlab' || type === 'bearer') return compileSharedToken(type, secret);
  if (isSenderSignatureType(type)) return compileSenderSignature(type, secret);
  if (type === 'sentry' || type === 'shopify' || type === 'jira' || type === 'pagerduty' || type === 'linear') {
    return compileBodySignature(type, secret, auth.toleranceSeconds);
  }

  switch (type) {
    case 'github':
      // X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>
      return {
        type,
        verify(headers, body) {
          const value = headers['x-hub-signature-256'];
          const given = value?.trim().toLowerCase().startsWith('sha256=') ? hexDigest(value) : undefined;
          return given !== undefined && sameDigest(given, hmac(secret, '', body));
        },
        failure: (headers) => missingOr(headers['x-hub-signature-256']) ?? 'bad signature',
      };
    case 'stripe':
      // Stripe-Signature: t=<unix seconds>,v1=<hex HMAC of "<t>.<raw body>">[,v1=...]; other schemes ignored
      return {
        type,
        verify(headers, body, nowMs) {
          const fields = (headers['stripe-signature'] ?? '').split(',').map((part) => {
            const at = part.indexOf('=');
            return at < 0 ? ['', ''] : [part.slice(0, at).trim(), part.slice(at + 1).trim()];
          });
          const timestamp = fields.find(([k]) => k === 't')?.[1];
          if (timestamp === undefined || !withinTolerance(timestamp, nowMs, tolerance)) return false;
          const expected = hmac(secret, `${timestamp}.`, body);
          // every candidate is compared: no early exit that times which one matched
          let ok = false;
          for (const [k, v] of fields) {
            const given = k === 'v1' ? hexDigest(v) : undefined;
            if (given !== undefined && sameDigest(given, expected)) ok = true;
          }
          return ok;
        },
        failure(headers, nowMs) {
          const value = headers['stripe-signature'];
          const timestamp = /(?:^|,)\s*t=([^,]*)/.exec(value ?? '')?.[1];
          return missingOr(value) ?? (withinTolerance(timestamp, nowMs, tolerance) ? 'bad signature' : 'stale timestamp');
        },
      };
    case 'standard-webhooks': {
      // webhook-signature: "v1,<base64 HMAC of id.timestamp.body>" entries, space separated
      const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
      if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) throw new Error('secret: a standard-webhooks secret is whsec_<base64>');
      const key = Buffer.from(encoded, 'base64');
      return {
        type,
        verify(headers, body, nowMs) {
          const { id, timestamp, signature } = standardWebhookHeaders(headers);
          if (!id?.trim() || !timestamp || !withinTolerance(timestamp.trim(), nowMs, tolerance)) return false;
          const expected = hmac(key, `${id.trim()}.${timestamp.trim()}.`, body);
          let ok = false;
          for (const entry of (signature ?? '').split(' ')) {
            const [version, given] = entry.split(',', 2);
            if (version !== 'v1' || !given) continue;
            if (sameDigest(Buffer.from(given, 'base64'), expected)) ok = true;
          }
          return ok;
        },
        failure(headers, nowMs) {
          const { id, timestamp, signature } = standardWebhookHeaders(headers);
          const missing = missingOr(id) ?? missingOr(timestamp) ?? missingOr(signature);
          return missing ?? (withinTolerance(timestamp, nowMs, tolerance) ? 'bad signature' : 'stale timestamp');
        },
      };
    }
    case 'twilio':
      return {
        type,
        verify(headers, body, _nowMs, url) {
          const given = headers['x-twilio-signature']?.trim();
          const signedUrl = auth.url ?? url;
          if (!given || !signedUrl) return false;
          const expected = createHmac('sha1', secret).update(twilioSignedText(signedUrl, headers['content-type'], body)).digest();
          return sameDigest(Buffer.from(given, 'base64'), expected);
        },
        failure(headers) {
          return missingOr(headers['x-twilio-signature']) ?? 'bad signature';
        },
      };
    case 'slack':
      // X-Slack-Signature: v0=<hex HMAC-SHA256 of "v0:<X-Slack-Request-Timestamp>:<raw body>">
      return {
        type,
        verify(headers, body, nowMs) {
          const timestamp = headers['x-slack-request-timestamp']?.trim();
          if (timestamp === undefined || !withinTolerance(timestamp, nowMs, tolerance)) return false;
          const value = headers['x-slack-signature']?.trim() ?? '';
          const given = value.startsWith('v0=') ? hexDigest(value.slice(3)) : undefined;
          return given !== undefined && sameDigest(given, hmac(secret, `v0:${timestamp}:`, body));
        },
        failure(headers, nowMs) {
          const missing = missingOr(headers['x-slack-request-timestamp']) ?? missingOr(headers['x-slack-signature']);
          return missing ?? (withinTolerance(headers['x-slack-request-timestamp'], nowMs, tolerance) ? 'bad signature' : 'stale timestamp');
        },
      };
    case 'hmac-sha256': {
      if (auth.header === undefined) throw new Error('header: hmac-sha256 needs the header that carries the digest');
      const header = auth.header.toLowerCase();
      return {
        type,
        verify(headers, body) {
          const given = hexDigest(headers[header]);
          return given !== undefined && sameDigest(given, hmac(secret, '', body));
        },
        failure: (headers) => missingOr(headers[header]) ?? 'bad signature',
      };
    }
  }
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

/**
 * The three Standard Webhooks headers of a request: `webhook-id`, `-timestamp`, `-signature`, or
 * Svix's `svix-id`, `svix-timestamp`, `svix-signature`, which Svix (and so Clerk and Resend) send
 * by default with the same values (https://docs.svix.com/receiving/verifying-payloads/how-manual);
 * one family is read whole, the webhook-* one when its id is there.
 */
export function standardWebhookHeaders(headers: Record<string, string | undefined>): { id?: string; timestamp?: string; signature?: string } {
  const family = headers['webhook-id'] !== undefined ? 'webhook' : 'svix';
  return { id: headers[`${family}-id`], timestamp: headers[`${family}-timestamp`], signature: headers[`${family}-signature`] };
}
