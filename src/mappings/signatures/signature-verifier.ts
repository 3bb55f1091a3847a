import type { MappingAuth } from '../../config/sections/mapping-schema.js';
import { compileBodySignature } from './body-signature-verifiers.js';
import { compileEd25519 } from './ed25519-verifier.js';
import { compileHmac } from './hmac-verifiers.js';
import { hexDigest, hmac, missingOr, sameDigest, withinTolerance, type SignatureFailure } from './signature-digest.js';
import { calendlySignature, CALENDLY_TOLERANCE_SECONDS, hubspotSignature, zoomSignature } from './timestamped-verifiers.js';
import { compileBasicAuth, compileSharedToken } from './token-verifiers.js';
import { compileSenderSignature, isSenderSignatureType } from './sender-verifiers.js';
import { compileTwilio } from './twilio-verifier.js';
import { compilePaypal } from './paypal-verifier.js';
import type { SignatureVerifier } from './verifier.js';

export type { SignatureFailure } from './signature-digest.js';

export const DEFAULT_TOLERANCE_SECONDS = 300;

/** the schemes that sign a timestamp, so `toleranceSeconds` means something (hmac-* only with a timestampHeader) */
const TIMESTAMPED = new Set<MappingAuth['type']>(['stripe', 'standard-webhooks', 'slack', 'linear', 'ed25519', 'hubspot', 'calendly', 'zoom']);

/** which types take each optional field: another type given one is a fault naming it */
const FIELD_TYPES: Record<'header' | 'encoding' | 'timestampHeader' | 'url' | 'publicKey' | 'sharedKey' | 'username' | 'webhookId' | 'certUrls' | 'certRoots', readonly MappingAuth['type'][]> = {
  header: ['hmac-sha256', 'hmac-sha1', 'shared-secret'],
  encoding: ['hmac-sha256', 'hmac-sha1'],
  timestampHeader: ['hmac-sha256', 'hmac-sha1'],
  url: ['twilio', 'hubspot'],
  publicKey: ['ed25519'],
  sharedKey: ['twilio'],
  username: ['basic'],
  webhookId: ['paypal'],
  certUrls: ['paypal'],
  certRoots: ['paypal'],
};

/**
 * Compiles a mapping's `auth`. Throws (a config fault, reported as `auth.<field>: ...` with the
 * mapping id) when the fields do not fit the type: a field another type takes, a tolerance where
 * no timestamp is signed, a missing secret, header or key, a standard-webhooks secret that is not
 * `whsec_<base64>`.
 */
export function compileSignatureVerifier(auth: MappingAuth): SignatureVerifier {
  const { type } = auth;
  for (const [field, types] of Object.entries(FIELD_TYPES)) {
    if (auth[field as keyof typeof FIELD_TYPES] !== undefined && !types.includes(type)) throw new Error(`${field}: only for type ${types.join(' or ')} (not ${type})`);
  }
  const timestamped = TIMESTAMPED.has(type) || auth.timestampHeader !== undefined;
  if (auth.toleranceSeconds !== undefined && !timestamped) throw new Error(`toleranceSeconds: ${type} signs no timestamp`);
  if (type === 'ed25519') {
    if (auth.secret !== undefined) throw new Error('secret: ed25519 verifies with publicKey, not a secret');
    return compileEd25519(auth.publicKey, auth.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS);
  }
  if (type === 'twilio') return compileTwilio(auth.secret, auth.sharedKey, auth.url);
  if (type === 'paypal') {
    if (auth.secret !== undefined) throw new Error("secret: paypal verifies with PayPal's certificate and webhookId, not a secret");
    return compilePaypal(auth.webhookId, auth.certUrls, auth.certRoots);
  }
  if (auth.secret === undefined) throw new Error(`secret: required for type ${type}`);
  const secret = auth.secret;
  const tolerance = auth.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (type === 'gitlab' || type === 'bearer' || type === 'shared-secret') return compileSharedToken(type, secret, auth.header);
  if (type === 'basic') return compileBasicAuth(auth.username, secret);
  if (type === 'hmac-sha256' || type === 'hmac-sha1') return compileHmac(type, auth, secret, tolerance);
  if (type === 'zoom') return zoomSignature(secret, tolerance);
  if (type === 'calendly') return calendlySignature(secret, auth.toleranceSeconds ?? CALENDLY_TOLERANCE_SECONDS);
  if (type === 'hubspot') return hubspotSignature(secret, tolerance, auth.url);
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
  }
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
