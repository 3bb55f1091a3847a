import type { SignatureVerifier } from './verifier.js';
import { base64Digest, hexDigest, hmac, missingOr, sameDigest, withinTolerance } from './signature-digest.js';

/**
 * Senders that sign the raw body alone with HMAC-SHA256 and the shared secret, each in its own
 * header and encoding. Each rule cites the sender's documentation.
 */
export type BodySignatureType = 'sentry' | 'shopify' | 'jira' | 'pagerduty' | 'linear';

/** the header a scheme carries its digest in (lower-cased), and how a digest is read from its value */
const schemes: Record<Exclude<BodySignatureType, 'pagerduty' | 'linear'>, { header: string; digest(value: string | undefined): Buffer | undefined }> = {
  // https://docs.sentry.io/integrations/integration-platform/webhooks/#sentry-hook-signature: hex HMAC-SHA256 of the body, the client secret as key
  sentry: { header: 'sentry-hook-signature', digest: hexDigest },
  // https://shopify.dev/docs/apps/build/webhooks/verify-deliveries#hmac-verification: base64 HMAC-SHA256 of the body, the app's client secret as key
  shopify: { header: 'x-shopify-hmac-sha256', digest: base64Digest },
  // https://developer.atlassian.com/cloud/jira/platform/webhooks/#secure-admin-webhooks: WebSub's method=signature, "sha256=<hex HMAC-SHA256 of the body>"
  jira: { header: 'x-hub-signature', digest: (value) => (value?.trim().toLowerCase().startsWith('sha256=') ? hexDigest(value) : undefined) },
};

/** Linear's default window: https://linear.app/developers/webhooks#securing-webhooks asks for webhookTimestamp within a minute */
export const LINEAR_TOLERANCE_SECONDS = 60;

export function compileBodySignature(type: BodySignatureType, secret: string, toleranceSeconds: number | undefined): SignatureVerifier {
  if (type === 'pagerduty') return pagerdutySignature(secret);
  if (type === 'linear') return linearSignature(secret, toleranceSeconds ?? LINEAR_TOLERANCE_SECONDS);
  const { header, digest } = schemes[type];
  // Shopify Events send the same digest without the X- prefix (https://shopify.dev/docs/apps/build/events/verify-deliveries)
  const read = type === 'shopify' ? (headers: Record<string, string | undefined>) => headers[header] ?? headers['shopify-hmac-sha256'] : (headers: Record<string, string | undefined>) => headers[header];
  return {
    type,
    verify(headers, body) {
      const given = digest(read(headers));
      return given !== undefined && sameDigest(given, hmac(secret, '', body));
    },
    failure: (headers) => missingOr(read(headers)) ?? 'bad signature',
  };
}

/**
 * PagerDuty v3 (https://github.com/PagerDuty/developer-docs/blob/main/docs/webhooks/04-Signatures.md): X-PagerDuty-Signature
 * holds comma-separated `v1=<hex HMAC-SHA256 of the body>`, one per signing secret while one is
 * rotated; the request is authentic when any v1 entry matches.
 */
function pagerdutySignature(secret: string): SignatureVerifier {
  return {
    type: 'pagerduty',
    verify(headers, body) {
      const expected = hmac(secret, '', body);
      // every candidate is compared: no early exit that times which one matched
      let ok = false;
      for (const entry of (headers['x-pagerduty-signature'] ?? '').split(',')) {
        const trimmed = entry.trim();
        const given = trimmed.startsWith('v1=') ? hexDigest(trimmed.slice(3)) : undefined;
        if (given !== undefined && sameDigest(given, expected)) ok = true;
      }
      return ok;
    },
    failure: (headers) => missingOr(headers['x-pagerduty-signature']) ?? 'bad signature',
  };
}

/**
 * Linear (https://linear.app/developers/webhooks#securing-webhooks): Linear-Signature is the hex
 * HMAC-SHA256 of the body; the body's `webhookTimestamp` (unix milliseconds, signed with it) must
 * be near now, so a captured delivery cannot be replayed later.
 */
function linearSignature(secret: string, toleranceSeconds: number): SignatureVerifier {
  return {
    type: 'linear',
    verify(headers, body, nowMs) {
      const given = hexDigest(headers['linear-signature']);
      if (given === undefined || !sameDigest(given, hmac(secret, '', body))) return false;
      return withinTolerance(linearTimestamp(body), nowMs, toleranceSeconds);
    },
    failure(headers, nowMs, body) {
      const missing = missingOr(headers['linear-signature']);
      if (missing) return missing;
      return body !== undefined && !withinTolerance(linearTimestamp(body), nowMs, toleranceSeconds) ? 'stale timestamp' : 'bad signature';
    },
  };
}

/** the body's webhookTimestamp in unix seconds, as text; read only from a body whose signature verified (or for the log) */
function linearTimestamp(body: Uint8Array): string | undefined {
  try {
    const ms = (JSON.parse(Buffer.from(body).toString('utf8')) as { webhookTimestamp?: unknown }).webhookTimestamp;
    return typeof ms === 'number' && Number.isFinite(ms) && ms >= 0 ? String(Math.floor(ms / 1000)) : undefined;
  } catch {
    return undefined;
  }
}
