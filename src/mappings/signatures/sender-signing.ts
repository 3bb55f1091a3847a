import { createHmac, randomUUID } from 'node:crypto';
import type { MappingAuth } from '../../config/sections/mapping-schema.js';

const hex = (key: string | Buffer, data: string | Buffer) => createHmac('sha256', key).update(data).digest('hex');
const base64 = (key: string | Buffer, data: string | Buffer) => createHmac('sha256', key).update(data).digest('base64');

/**
 * The headers a sender adds when it signs `body` with `auth`'s secret, each as its documentation
 * says (the verifiers in this folder cite it), so `herald hooks send` can try a mapping without a
 * signer of one's own. Undefined for a scheme signed by the sender's private key or over more than
 * the body and a timestamp (sendgrid, netlify, msgraph, mailgun, twilio, linear).
 */
export function senderSignature(auth: MappingAuth, body: Buffer, nowMs: number): Record<string, string> | undefined {
  const { secret } = auth;
  // a scheme verified by a public key has no shared secret to sign with
  if (secret === undefined) return undefined;
  const seconds = String(Math.floor(nowMs / 1000));
  switch (auth.type) {
    case 'github':
      return { 'X-Hub-Signature-256': `sha256=${hex(secret, body)}` };
    case 'jira':
      return { 'X-Hub-Signature': `sha256=${hex(secret, body)}` };
    case 'notion':
      return { 'X-Notion-Signature': `sha256=${hex(secret, body)}` };
    case 'sentry':
      return { 'Sentry-Hook-Signature': hex(secret, body) };
    case 'shopify':
      return { 'X-Shopify-Hmac-Sha256': base64(secret, body) };
    case 'pagerduty':
      return { 'X-PagerDuty-Signature': `v1=${hex(secret, body)}` };
    case 'hmac-sha256': {
      // a timestamp signed before the body is each sender's own layout: sent from the sender
      const extra = auth as { encoding?: 'hex' | 'base64'; timestampHeader?: string };
      if (extra.timestampHeader !== undefined) return undefined;
      return { [auth.header ?? 'x-signature']: extra.encoding === 'base64' ? base64(secret, body) : hex(secret, body) };
    }
    case 'stripe':
      return { 'Stripe-Signature': `t=${seconds},v1=${hex(secret, Buffer.concat([Buffer.from(`${seconds}.`), body]))}` };
    case 'slack':
      return { 'X-Slack-Request-Timestamp': seconds, 'X-Slack-Signature': `v0=${hex(secret, Buffer.concat([Buffer.from(`v0:${seconds}:`), body]))}` };
    case 'standard-webhooks': {
      const id = `msg_${randomUUID()}`;
      const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
      return { 'webhook-id': id, 'webhook-timestamp': seconds, 'webhook-signature': `v1,${base64(key, Buffer.concat([Buffer.from(`${id}.${seconds}.`), body]))}` };
    }
    case 'gitlab':
      return { 'X-Gitlab-Token': secret };
    case 'bearer':
      return { Authorization: `Bearer ${secret}` };
    default:
      return undefined;
  }
}
