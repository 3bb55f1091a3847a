import { definePlugin } from '../../src/plugin-sdk/sdk.js';
import { webhookConfigSchema } from './config.js';
import { webhookChannel } from './channel.js';

export const webhookPlugin = definePlugin({
  id: 'webhook',
  roles: ['channel'],
  summary: 'Webhook: POSTs each reply as JSON to a URL of yours, signed per the Standard Webhooks spec.',
  config: webhookConfigSchema,
  docs: [
    '`to` is passed through as the `to` field of the body (your receiver decides what it means); it may be left out.',
    'Body: `{"text", "to", "runId", "sessionKey", "agent", "createdAt"}` (`runId` is null for a heartbeat reply). Headers: `webhook-id` (the delivery id: the same on every retry, so the receiver can drop repeats), `webhook-timestamp` (Unix seconds) and, with `secret`, `webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` keyed with the base64-decoded part after `whsec_`. Any Standard Webhooks library verifies it (e.g. `new Webhook(secret).verify(body, headers)`).',
    'Secret: generate one with `node -e "console.log(\'whsec_\' + require(\'crypto\').randomBytes(32).toString(\'base64\'))"` and give the same value to the receiver. Answer 2xx to accept; 5xx or 429 make herald retry; another 4xx fails the delivery.',
  ].join('\n\n'),
  guarantees: {
    threads: "passed through as the body's `threadId` field (only when given)",
    idempotency: "`webhook-id` header = the delivery id, the same on every retry (your receiver deduplicates)",
    splitAbove: "never split",
    escaping: "JSON body: nothing to escape",
  },
  create: ({ config }) => ({ channel: config ? webhookChannel(config) : undefined }),
});
