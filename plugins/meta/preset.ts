import { z } from 'zod';
import { definePreset, presetCommonOptions, type MappingConfig } from '../../src/plugin-sdk/sdk.js';

/**
 * Meta's webhooks for WhatsApp Business (Cloud API) and Messenger, on one callback URL
 * (https://developers.facebook.com/docs/graph-api/webhooks/getting-started):
 * - the GET verification request (hub.mode=subscribe, hub.verify_token, hub.challenge) is answered
 *   with the challenge when hub.verify_token is `verifyToken` (constant-time compare);
 * - every POST is signed: X-Hub-Signature-256, sha256= HMAC-SHA256 of the body with the app secret;
 * - WhatsApp: entry[].changes[].field routes (`events`, default messages); a message becomes an
 *   agent run per sender (wa_id), deduplicated on its wamid; status updates (sent, delivered,
 *   read) are answered 200 without a run, as Meta expects a 200 for every delivery
 *   (https://developers.facebook.com/docs/whatsapp/cloud-api/webhooks/payload-examples);
 * - Messenger (object page): entry[].messaging[] messages, per sender PSID, deduplicated on mid
 *   (https://developers.facebook.com/docs/messenger-platform/webhooks).
 * Meta may batch several entries in one POST: the first entry's first change or message is taken.
 */
export const metaPreset = definePreset({
  path: 'meta',
  verifies: 'X-Hub-Signature-256 (sha256= HMAC-SHA256 of the body with `secret`, the app secret); GET hub.challenge with hub.verify_token = `verifyToken`',
  summary: 'WhatsApp Business and Messenger (Meta webhooks): the GET verification answered, messages become agent runs per sender.',
  docs: 'https://developers.facebook.com/docs/graph-api/webhooks/getting-started',
  options: presetCommonOptions.extend({
    verifyToken: z.string().min(1).optional().describe('The Verify Token typed into the app\'s webhook settings (${ENV} allowed); compared in constant time.'),
  }),
  requires: ['secret', 'verifyToken'],
  mappings: (o) => {
    const fields = o.events ?? ['messages'];
    const signed = (id: string, when: string, rest: Omit<MappingConfig, 'id' | 'match'>): MappingConfig => ({
      id: `meta-${id}`,
      match: { path: o.path, when },
      auth: { type: 'github', secret: o.secret! },
      ...rest,
    });
    const wa = 'entry[0].changes[0].value';
    return [
      {
        id: 'meta-verification',
        match: { path: o.path },
        respond: { method: 'GET', verifyToken: { query: 'hub.verify_token', token: o.verifyToken! }, when: '$query."hub.mode" = "subscribe"', body: '{{ $query."hub.challenge" }}', contentType: 'text/plain' },
        auth: { type: 'github', secret: o.secret! },
      },
      signed('whatsapp-message', `object = "whatsapp_business_account" and entry[0].changes[0].field in ${JSON.stringify(fields)} and $exists(${wa}.messages)`, {
        name: 'WhatsApp {{ ' + wa + '.contacts[0].profile.name ? ' + wa + '.contacts[0].profile.name : "+" & ' + wa + '.messages[0].from }}',
        idempotencyKey: `meta:{{ ${wa}.messages[0].id }}`,
        sessionKey: `hook:meta:whatsapp:{{ ${wa}.messages[0].from }}`,
        // a contact without a profile name (WhatsApp sends contacts[].profile only when it has one) is named by number
        messageTemplate: `WhatsApp {{ ${wa}.messages[0].type }} from {{ ${wa}.contacts[0].profile.name ? ${wa}.contacts[0].profile.name & " (+" & ${wa}.messages[0].from & ")" : "+" & ${wa}.messages[0].from }}{{ ${wa}.metadata.display_phone_number ? " to " & ${wa}.metadata.display_phone_number : "" }}:\n{{ ${wa}.messages[0].text.body ? ${wa}.messages[0].text.body : ${wa}.messages[0].(image ? (image.caption ? image.caption : "(an image)") : "(a " & type & " message)") }}`,
      }),
      signed('messenger-message', 'object = "page" and $exists(entry[0].messaging[0].message) and $not($exists(entry[0].messaging[0].message.is_echo))', {
        name: 'Messenger {{ entry[0].messaging[0].sender.id }}',
        idempotencyKey: 'meta:{{ entry[0].messaging[0].message.mid }}',
        sessionKey: 'hook:meta:messenger:{{ entry[0].messaging[0].sender.id }}',
        messageTemplate: 'Messenger message from {{ entry[0].messaging[0].sender.id }} to page {{ entry[0].messaging[0].recipient.id }}:\n{{ entry[0].messaging[0].message.text ? entry[0].messaging[0].message.text : ($count(entry[0].messaging[0].message.attachments) > 0 ? "(" & $join(entry[0].messaging[0].message.attachments.type, ", ") & " attachment)" : "(no text)") }}',
      }),
      // statuses, echoes, other fields: Meta wants a 200 for each, or it retries and finally disables the webhook
      signed('other', 'true', { respond: { when: 'true', status: 200, body: '', contentType: 'text/plain' } }),
    ];
  },
});
