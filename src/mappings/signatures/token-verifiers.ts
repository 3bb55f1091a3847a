import { safeEqual } from '../../utils/constant-time.js';
import type { SignatureVerifier } from './verifier.js';
import { missingOr } from './signature-digest.js';

/**
 * Senders that sign nothing but send a shared token in a header: the token is compared in
 * constant time, and, like a hook token, it proves the sender only over TLS.
 */
export type SharedTokenType = 'gitlab' | 'bearer' | 'shared-secret';

/** the header (lower-cased) and how the token is read from its value */
const schemes: Record<Exclude<SharedTokenType, 'shared-secret'>, { header: string; token(value: string): string | undefined }> = {
  // https://docs.gitlab.com/ee/user/project/integrations/webhooks.html#validate-payloads-by-using-a-secret-token: X-Gitlab-Token is the secret token as set
  gitlab: { header: 'x-gitlab-token', token: (value) => value },
  // RFC 6750: "Authorization: Bearer <token>", what Alertmanager's http_config.authorization sends
  // (https://prometheus.io/docs/alerting/latest/configuration/#http_config)
  bearer: { header: 'authorization', token: (value) => /^Bearer +(\S+)\s*$/i.exec(value)?.[1] },
};

/**
 * `shared-secret`: the secret as it is, in the header the mapping names, e.g. Cloudflare's
 * notification webhooks, which send the destination's secret in cf-webhook-auth
 * (https://developers.cloudflare.com/notifications/get-started/configure-webhooks/).
 */
export function compileSharedToken(type: SharedTokenType, secret: string, namedHeader?: string): SignatureVerifier {
  if (type === 'shared-secret' && namedHeader === undefined) throw new Error('header: shared-secret needs the header that carries the secret');
  const { header, token } = type === 'shared-secret' ? { header: namedHeader!.toLowerCase(), token: (value: string) => value.trim() } : schemes[type];
  return {
    type,
    verify(headers) {
      const value = headers[header];
      const given = value === undefined ? undefined : token(value);
      return given !== undefined && safeEqual(given, secret);
    },
    failure: (headers) => missingOr(headers[header]) ?? 'bad signature',
  };
}

/**
 * HTTP basic auth (RFC 7617): `Authorization: Basic <base64 of user:password>`, what senders
 * that offer "basic authentication" for their webhooks send (Zendesk, Twilio's Webhook Settings,
 * Brevo). The user name and the password are each compared in constant time, both always.
 */
export function compileBasicAuth(username: string | undefined, password: string): SignatureVerifier {
  if (username === undefined) throw new Error('username: basic needs the user name the sender sends');
  return {
    type: 'basic',
    verify(headers) {
      const credentials = basicCredentials(headers.authorization);
      if (credentials === undefined) return false;
      const sameUser = safeEqual(credentials.user, username);
      const samePassword = safeEqual(credentials.password, password);
      return sameUser && samePassword;
    },
    failure: (headers) => (basicCredentials(headers.authorization) === undefined ? 'missing signature' : 'bad signature'),
  };
}

/** the user and password of `Authorization: Basic ...`, or undefined when the header is absent or not Basic */
export function basicCredentials(value: string | undefined): { user: string; password: string } | undefined {
  const encoded = value && /^Basic +([A-Za-z0-9+/]+={0,2})\s*$/i.exec(value)?.[1];
  if (!encoded) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
