import { createHash, createHmac, createPublicKey, verify as verifySignature, type KeyObject } from 'node:crypto';
import { safeEqual } from '../../utils/constant-time.js';
import type { SignatureVerifier } from './verifier.js';
import { hexDigest, hmac, missingOr, sameDigest } from './signature-digest.js';

/**
 * Senders whose proof is not a digest of the body in a header: a value inside the body
 * (Microsoft Graph's clientState, Mailgun's signature object), a public-key signature
 * (SendGrid), a JWS (Netlify), or a one-time unsigned handshake beside a signature (Notion).
 * Each rule cites the sender's documentation.
 */
export const SENDER_SIGNATURE_TYPES = ['msgraph', 'sendgrid', 'mailgun', 'netlify', 'notion'] as const;
export type SenderSignatureType = (typeof SENDER_SIGNATURE_TYPES)[number];

export function isSenderSignatureType(type: string): type is SenderSignatureType {
  return (SENDER_SIGNATURE_TYPES as readonly string[]).includes(type);
}

export function compileSenderSignature(type: SenderSignatureType, secret: string): SignatureVerifier {
  switch (type) {
    case 'msgraph':
      return msgraphClientState(secret);
    case 'sendgrid':
      return sendgridEcdsa(secret);
    case 'mailgun':
      return mailgunSignature(secret);
    case 'netlify':
      return netlifyJws(secret);
    case 'notion':
      return notionSignature(secret);
  }
}

/** a JSON body as an object, or undefined */
function jsonObject(body: Uint8Array): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(body).toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Microsoft Graph change notifications (https://learn.microsoft.com/en-us/graph/change-notifications-delivery-webhooks):
 * Graph signs nothing; each notification in `value` carries the subscription's `clientState`,
 * which must equal the secret (compared in constant time, every one of them). The endpoint
 * validation request (a POST with `?validationToken=` and no body, before the subscription
 * exists, carrying no clientState) is admitted so that the path's handshake echoes the token; it
 * starts nothing. Lifecycle notifications carry clientState too.
 */
function msgraphClientState(secret: string): SignatureVerifier {
  const isValidation = (body: Uint8Array, url?: string) => body.byteLength === 0 && url !== undefined && new URL(url, 'http://herald.invalid').searchParams.has('validationToken');
  const states = (body: Uint8Array): unknown[] | undefined => {
    const value = jsonObject(body)?.value;
    return Array.isArray(value) && value.length > 0 ? value.map((n) => (n !== null && typeof n === 'object' ? (n as { clientState?: unknown }).clientState : undefined)) : undefined;
  };
  return {
    type: 'msgraph',
    verify(_headers, body, _nowMs, url) {
      if (isValidation(body, url)) return true;
      const given = states(body);
      if (!given) return false;
      // every notification is compared: no early exit that times which one failed
      let ok = true;
      for (const state of given) if (!(typeof state === 'string' && safeEqual(state, secret))) ok = false;
      return ok;
    },
    failure(_headers, _nowMs, body) {
      return body !== undefined && states(body)?.every((s) => typeof s === 'string') ? 'bad signature' : 'missing signature';
    },
  };
}

/**
 * SendGrid's Signed Event Webhook (https://www.twilio.com/docs/sendgrid/for-developers/tracking-events/getting-started-event-webhook-security-features):
 * X-Twilio-Email-Event-Webhook-Signature is a base64 ECDSA (P-256, SHA-256) signature of
 * X-Twilio-Email-Event-Webhook-Timestamp followed by the raw body; `secret` is the verification
 * key SendGrid shows (the base64 DER public key). SendGrid's own library checks no time window,
 * and neither does herald: the timestamp is bound by the signature, a repeat by the event ids.
 */
function sendgridEcdsa(secret: string): SignatureVerifier {
  let key: KeyObject;
  try {
    key = createPublicKey({ key: Buffer.from(secret.replace(/-----[^-]+-----|\s/g, ''), 'base64'), format: 'der', type: 'spki' });
  } catch {
    throw new Error('secret: the SendGrid verification key (base64 of the DER public key, as SendGrid shows it)');
  }
  if (key.asymmetricKeyType !== 'ec') throw new Error('secret: the SendGrid verification key is an ECDSA public key');
  const signatureHeader = 'x-twilio-email-event-webhook-signature';
  const timestampHeader = 'x-twilio-email-event-webhook-timestamp';
  return {
    type: 'sendgrid',
    verify(headers, body) {
      const signature = headers[signatureHeader]?.trim();
      const timestamp = headers[timestampHeader];
      if (!signature || timestamp === undefined || !/^[A-Za-z0-9+/]+={0,2}$/.test(signature)) return false;
      try {
        return verifySignature('sha256', Buffer.concat([Buffer.from(timestamp, 'utf8'), body]), { key, dsaEncoding: 'der' }, Buffer.from(signature, 'base64'));
      } catch {
        return false;
      }
    },
    failure: (headers) => missingOr(headers[signatureHeader]) ?? missingOr(headers[timestampHeader]) ?? 'bad signature',
  };
}

/** Mailgun's signature object: in a JSON body under `signature`, in a form body as its own fields */
function mailgunFields(body: Uint8Array): { timestamp?: unknown; token?: unknown; signature?: unknown } | undefined {
  const json = jsonObject(body);
  if (json) return json.signature !== null && typeof json.signature === 'object' ? (json.signature as Record<string, unknown>) : undefined;
  const form = new URLSearchParams(Buffer.from(body).toString('utf8'));
  return form.has('signature') ? { timestamp: form.get('timestamp'), token: form.get('token'), signature: form.get('signature') } : undefined;
}

/**
 * Mailgun (https://documentation.mailgun.com/docs/mailgun/user-manual/webhooks/securing-webhooks):
 * the body's `signature` holds `timestamp`, `token` and `signature`, the hex HMAC-SHA256 of
 * timestamp then token with the HTTP webhook signing key. Mailgun retries for hours with the
 * same signature, so no time window is applied; a repeat is one by its event id.
 */
function mailgunSignature(secret: string): SignatureVerifier {
  return {
    type: 'mailgun',
    verify(_headers, body) {
      const fields = mailgunFields(body);
      if (!fields || typeof fields.timestamp !== 'string' || typeof fields.token !== 'string' || typeof fields.signature !== 'string') return false;
      const given = hexDigest(fields.signature);
      return given !== undefined && sameDigest(given, createHmac('sha256', secret).update(fields.timestamp).update(fields.token).digest());
    },
    failure: (_headers, _nowMs, body) => (body !== undefined && mailgunFields(body) ? 'bad signature' : 'missing signature'),
  };
}

/**
 * Netlify deploy notifications (https://docs.netlify.com/site-deploys/deploy-notifications/#payload-signature):
 * X-Webhook-Signature is a JWS signed HS256 with the notification's JWS secret token, whose
 * claims are `iss: "netlify"` and `sha256`, the hex SHA-256 of the raw body.
 */
function netlifyJws(secret: string): SignatureVerifier {
  const header = 'x-webhook-signature';
  return {
    type: 'netlify',
    verify(headers, body) {
      const parts = headers[header]?.trim().split('.');
      if (parts?.length !== 3) return false;
      const [head, claims, signature] = parts as [string, string, string];
      const expected = createHmac('sha256', secret).update(`${head}.${claims}`).digest();
      if (!sameDigest(Buffer.from(signature, 'base64url'), expected)) return false;
      try {
        const alg = (JSON.parse(Buffer.from(head, 'base64url').toString('utf8')) as { alg?: unknown }).alg;
        const payload = JSON.parse(Buffer.from(claims, 'base64url').toString('utf8')) as { iss?: unknown; sha256?: unknown };
        return alg === 'HS256' && payload.iss === 'netlify' && typeof payload.sha256 === 'string' && payload.sha256.toLowerCase() === createHash('sha256').update(body).digest('hex');
      } catch {
        return false;
      }
    },
    failure: (headers) => missingOr(headers[header]) ?? 'bad signature',
  };
}

/**
 * Notion webhooks (https://developers.notion.com/reference/webhooks#step-3-validating-event-payloads-recommended):
 * X-Notion-Signature is `sha256=` and the hex HMAC-SHA256 of the body with the subscription's
 * verification token. That token reaches the endpoint once, unsigned, as the body
 * `{"verification_token": "..."}` when the subscription is made: that body alone is admitted
 * so that the path's handshake answers it; it starts nothing.
 */
function notionSignature(secret: string): SignatureVerifier {
  const header = 'x-notion-signature';
  const isVerification = (body: Uint8Array) => {
    const json = jsonObject(body);
    return json !== undefined && Object.keys(json).length === 1 && typeof json.verification_token === 'string';
  };
  return {
    type: 'notion',
    verify(headers, body) {
      if (headers[header] === undefined && isVerification(body)) return true;
      const given = hexDigest(headers[header]);
      return given !== undefined && headers[header]!.trim().toLowerCase().startsWith('sha256=') && sameDigest(given, hmac(secret, '', body));
    },
    failure: (headers) => missingOr(headers[header]) ?? 'bad signature',
  };
}
