import { createHmac } from 'node:crypto';
import type { SignatureVerifier } from './verifier.js';
import { encodedDigest, freshTimestamp, hexDigest, hmac, missingOr, sameDigest, withinTolerance } from './signature-digest.js';

/** Calendly's window: its example verifier refuses a `t` more than three minutes old */
export const CALENDLY_TOLERANCE_SECONDS = 180;

/**
 * Zoom (https://developers.zoom.us/docs/api/webhooks/#verify-webhook-events): x-zm-signature is
 * `v0=<hex HMAC-SHA256 of "v0:<x-zm-request-timestamp>:<raw body>">` with the app's Secret Token.
 * Zoom states no window; herald takes `toleranceSeconds` (default 300) in either direction.
 */
export function zoomSignature(secret: string, toleranceSeconds: number): SignatureVerifier {
  return {
    type: 'zoom',
    verify(headers, body, nowMs) {
      const timestamp = headers['x-zm-request-timestamp']?.trim();
      if (timestamp === undefined || !withinTolerance(timestamp, nowMs, toleranceSeconds)) return false;
      const value = headers['x-zm-signature']?.trim() ?? '';
      const given = value.startsWith('v0=') ? hexDigest(value.slice(3)) : undefined;
      return given !== undefined && sameDigest(given, hmac(secret, `v0:${timestamp}:`, body));
    },
    failure(headers, nowMs) {
      const missing = missingOr(headers['x-zm-request-timestamp']) ?? missingOr(headers['x-zm-signature']);
      return missing ?? (withinTolerance(headers['x-zm-request-timestamp'], nowMs, toleranceSeconds) ? 'bad signature' : 'stale timestamp');
    },
  };
}

/**
 * Calendly (https://developer.calendly.com/api-docs/overview/webhooks/webhook-signatures):
 * Calendly-Webhook-Signature is `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` with
 * the webhook signing key; Calendly's example refuses a `t` older than three minutes (herald: a
 * `t` that far in the future too).
 */
export function calendlySignature(secret: string, toleranceSeconds: number): SignatureVerifier {
  const fields = (value: string | undefined) => {
    const out = new Map<string, string>();
    for (const part of (value ?? '').split(',')) {
      const at = part.indexOf('=');
      if (at > 0) out.set(part.slice(0, at).trim(), part.slice(at + 1).trim());
    }
    return out;
  };
  return {
    type: 'calendly',
    verify(headers, body, nowMs) {
      const parts = fields(headers['calendly-webhook-signature']);
      const t = parts.get('t');
      const given = hexDigest(parts.get('v1'));
      if (t === undefined || given === undefined || !withinTolerance(t, nowMs, toleranceSeconds)) return false;
      return sameDigest(given, hmac(secret, `${t}.`, body));
    },
    failure(headers, nowMs) {
      const value = headers['calendly-webhook-signature'];
      return missingOr(value) ?? (withinTolerance(fields(value).get('t'), nowMs, toleranceSeconds) ? 'bad signature' : 'stale timestamp');
    },
  };
}

/**
 * HubSpot v3 (https://developers.hubspot.com/docs/apps/legacy-apps/authentication/validating-requests#validate-the-v3-request-signature):
 * X-HubSpot-Signature-v3 is the base64 HMAC-SHA256, with the app's client secret, of the method,
 * the URI, the raw body and X-HubSpot-Request-Timestamp (unix milliseconds), concatenated; the
 * URI with HubSpot's listed characters decoded. HubSpot asks to refuse a timestamp older than five
 * minutes; herald refuses one that far in the future too. The method is POST: a signed hook
 * is never anything else. `url`: the URL as configured at HubSpot,
 * behind a proxy that changes it.
 */
export function hubspotSignature(secret: string, toleranceSeconds: number, configuredUrl: string | undefined): SignatureVerifier {
  return {
    type: 'hubspot',
    verify(headers, body, nowMs, url) {
      const timestamp = headers['x-hubspot-request-timestamp']?.trim();
      const given = encodedDigest(headers['x-hubspot-signature-v3'], 'base64', 32, '');
      const signedUrl = configuredUrl ?? url;
      if (given === undefined || !signedUrl || timestamp === undefined || !/^\d{13}$/.test(timestamp) || !freshTimestamp(timestamp, nowMs, toleranceSeconds)) return false;
      const expected = createHmac('sha256', secret).update(`POST${hubspotUri(signedUrl)}`).update(body).update(timestamp).digest();
      return sameDigest(given, expected);
    },
    failure(headers, nowMs) {
      const missing = missingOr(headers['x-hubspot-signature-v3']) ?? missingOr(headers['x-hubspot-request-timestamp']);
      return missing ?? (freshTimestamp(headers['x-hubspot-request-timestamp'], nowMs, toleranceSeconds) ? 'bad signature' : 'stale timestamp');
    },
  };
}

/** the characters HubSpot decodes in the URI it signs (the table of its v3 instructions); the rest stay encoded */
const HUBSPOT_DECODED: Record<string, string> = { '%3A': ':', '%2F': '/', '%3F': '?', '%40': '@', '%21': '!', '%24': '$', '%27': "'", '%28': '(', '%29': ')', '%2A': '*', '%2C': ',', '%3B': ';' };

export function hubspotUri(url: string): string {
  return url.replace(/%(3A|2F|3F|40|21|24|27|28|29|2A|2C|3B)/gi, (code) => HUBSPOT_DECODED[code.toUpperCase()]!);
}
