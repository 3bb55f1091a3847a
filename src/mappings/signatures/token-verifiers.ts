import { safeEqual } from '../../utils/constant-time.js';
import type { SignatureVerifier } from './signature-verifier.js';
import { missingOr } from './signature-digest.js';

/**
 * Senders that sign nothing but send a shared token in a header: the token is compared in
 * constant time, and, like a hook token, it proves the sender only over TLS.
 */
export type SharedTokenType = 'gitlab' | 'bearer';

/** the header (lower-cased) and how the token is read from its value */
const schemes: Record<SharedTokenType, { header: string; token(value: string): string | undefined }> = {
  // https://docs.gitlab.com/ee/user/project/integrations/webhooks.html#validate-payloads-by-using-a-secret-token: X-Gitlab-Token is the secret token as set
  gitlab: { header: 'x-gitlab-token', token: (value) => value },
  // RFC 6750: "Authorization: Bearer <token>", what Alertmanager's http_config.authorization sends
  // (https://prometheus.io/docs/alerting/latest/configuration/#http_config)
  bearer: { header: 'authorization', token: (value) => /^Bearer +(\S+)\s*$/i.exec(value)?.[1] },
};

export function compileSharedToken(type: SharedTokenType, secret: string): SignatureVerifier {
  const { header, token } = schemes[type];
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
