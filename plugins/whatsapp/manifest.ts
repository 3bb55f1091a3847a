import { definePlugin } from '../../src/plugin-sdk/sdk.js';
import { whatsappConfigSchema } from './config.js';
import { whatsappChannel } from './channel.js';
import { whatsappRecipient } from './recipient.js';

export const whatsappPlugin = definePlugin({
  id: 'whatsapp',
  roles: ['channel'],
  summary: 'WhatsApp: sends replies through the WhatsApp Business Cloud API (`POST /{phone-number-id}/messages`). The fallback of `channel: "last"`.',
  config: whatsappConfigSchema,
  recipient: whatsappRecipient,
  docs: [
    '`to` is the recipient\'s phone number in international format, digits only or with `+` (`4915112345678`). WhatsApp lets a business send free text only within 24 hours of the user\'s last message; outside it the API answers an error (code 131047), which fails the delivery.',
    'Token: create an app of type *Business* at <https://developers.facebook.com/apps>, add the *WhatsApp* product; *API Setup* shows a temporary access token and the *Phone number ID*. For a token that does not expire, create a System User in Business Settings with the `whatsapp_business_messaging` permission.',
    'Messages over 4096 characters are split. The Cloud API has no idempotency key.',
  ].join('\n\n'),
  guarantees: {
    threads: "a message id (`wamid\u2026`) \u2192 `context.message_id`: the first part quotes and replies to it; WhatsApp has no threads",
    idempotency: "none: the Cloud API has no idempotency key",
    splitAbove: "4096 characters",
    escaping: "plain text; WhatsApp renders `*bold*` `_italic_`",
  },
  create: ({ config }) => ({ channel: config ? whatsappChannel(config) : undefined }),
});
