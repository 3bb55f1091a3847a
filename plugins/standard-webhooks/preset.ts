import { z } from 'zod';
import { definePreset, notListed, presetCommonOptions, presetRoutes } from '../../src/plugin-sdk/sdk.js';

/**
 * Any sender that follows Standard Webhooks (https://www.standardwebhooks.com/, the spec at
 * https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md):
 * Svix, Resend, Clerk, Lemon Squeezy, ... The payload is `{type, timestamp, data}`; routed by
 * `type` (types not in `events` answered 204), the webhook-id header is the key (the same on a
 * retry). Svix, Clerk and Resend send the same headers named svix-id, svix-timestamp and
 * svix-signature by default: either family is verified, either id is the key. Each sender's data differs, so the message shows the type and the data as JSON, cut at
 * 3000 characters; `sessionKey` (e.g. `hook:clerk:{{data.id}}`) keeps one object in one session.
 * Enable it once per sender with its own `path` and `label`.
 */
export const standardWebhooksPreset = definePreset({
  path: 'standard-webhooks',
  verifies: 'webhook-id, webhook-timestamp and webhook-signature (or Svix\'s svix-id, svix-timestamp and svix-signature): v1,<base64 HMAC-SHA256 of "id.timestamp.body"> with `secret` (whsec_<base64>), timestamp within 5 minutes',
  summary: 'Any Standard Webhooks sender (Svix, Resend, Clerk, ...): each event becomes an agent run with its type and data.',
  docs: 'https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md',
  options: presetCommonOptions.extend({
    label: z.string().min(1).default('Webhook').describe('The sender, as the hooks are named ("Resend", "Clerk"): the run name is "<label> <type>".'),
    secret: z
      .string()
      .regex(/^whsec_[A-Za-z0-9+/]+={0,2}$/, 'the whsec_<base64> signing secret')
      .optional()
      .describe("The endpoint's signing secret, whsec_<base64> (${ENV} allowed)."),
  }),
  requires: ['secret'],
  mappings: (o) => {
    const on = presetRoutes({ prefix: 'standard-webhooks', path: o.path, auth: { type: 'standard-webhooks', secret: o.secret! }, idempotencyKey: '{{ headers.webhook-id ? headers.webhook-id : headers.svix-id }}' });
    const label = o.label.replace(/\{\{/g, '{ {');
    return [
      ...(o.events ? [on('skip', notListed('type', o.events), { action: 'skip' })] : []),
      on('event', 'true', {
        // the spec's timestamp is an ISO string; Clerk sends unix milliseconds, Resend created_at instead
        schema: { type: 'object', required: ['type', 'data'], properties: { type: { type: 'string' }, timestamp: { type: ['string', 'number'] } } },
        name: `${label} {{type}}`,
        messageTemplate: `${label} event {{type}}{{ timestamp ? " at " & ($type(timestamp) = "number" ? $fromMillis(timestamp) : timestamp) : created_at ? " at " & created_at : "" }}:\n{{ $substring($string(data), 0, 3000) }}`,
      }),
    ];
  },
});
