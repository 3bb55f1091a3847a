import { z } from 'zod';
import { definePreset, messageLines, presetCommonOptions, type MappingConfig } from '../../src/plugin-sdk/sdk.js';

/**
 * Twilio Programmable Messaging and Voice webhooks (https://www.twilio.com/docs/usage/webhooks),
 * form-encoded and signed with X-Twilio-Signature (HMAC-SHA1 of the URL and the sorted form
 * fields with the auth token, https://www.twilio.com/docs/usage/security#validating-requests).
 * - An incoming SMS or MMS (https://www.twilio.com/docs/messaging/guides/webhook-request) is an
 *   agent run per sender number, deduplicated on MessageSid; the reply is answered as TwiML
 *   <Message> when it is ready within `replyWaitMs` (Twilio waits 15 s), else an empty
 *   <Response/> and the reply goes out through the mapping's channel.
 * - Message status callbacks (MessageStatus) are answered 204.
 * - Voice status callbacks (https://www.twilio.com/docs/voice/api/call-resource#statuscallback)
 *   become a wake line, once per call and status (`events`: CallStatus values, default completed,
 *   busy, no-answer, failed).
 */
export const twilioPreset = definePreset({
  path: 'twilio',
  verifies: 'X-Twilio-Signature (HMAC-SHA1 of the URL and sorted form fields with `secret`, the auth token; `url`: the URL as configured in Twilio, behind a proxy)',
  summary: 'Twilio SMS answered with TwiML from the agent\'s reply, and voice call status callbacks.',
  docs: 'https://www.twilio.com/docs/usage/webhooks/messaging-webhooks',
  options: presetCommonOptions.extend({
    url: z.string().url().optional().describe('The webhook URL exactly as configured in Twilio, when a proxy changes the URL herald sees (Twilio signs it).'),
    sharedKey: z
      .string()
      .min(1)
      .optional()
      .describe("The secret of the SharedKey a Twilio Webhook Setting signs this URL with (HMAC-SHA256, X-Twilio-Webhooks-Signature-Settings); requests without that header are verified with `secret`, the auth token."),
    replyWaitMs: z.number().int().positive().max(14000).default(5000).describe('How long an SMS waits for the reply to answer it as TwiML (Twilio allows 15 s).'),
  }),
  requires: ['secret'],
  mappings: (o) => {
    const statuses = o.events ?? ['completed', 'busy', 'no-answer', 'failed'];
    const on = (id: string, when: string, rest: Omit<MappingConfig, 'id' | 'match'>): MappingConfig => ({
      id: `twilio-${id}`,
      match: { path: o.path, when },
      auth: { type: 'twilio', secret: o.secret!, ...(o.url !== undefined && { url: o.url }), ...(o.sharedKey !== undefined && { sharedKey: o.sharedKey }) },
      ...rest,
    });
    return [
      on('message-status', '$exists(MessageStatus) and $not($exists(Body))', { action: 'skip' }),
      on('sms', '$exists(MessageSid) and $exists(Body)', {
        name: 'SMS {{ From }}',
        idempotencyKey: 'twilio:{{ MessageSid }}',
        sessionKey: 'hook:twilio:{{ From }}',
        // an MMS may carry no text (Body "") and its media as MediaUrl<n> with MediaContentType<n>
        messageTemplate: messageLines([
          'SMS from {{ From }} to {{ To }}{{ NumMedia and NumMedia != "0" ? " (" & NumMedia & " attachment(s))" : "" }}:',
          '{{ Body ? Body : "(no text)" }}',
          '{{ ($form := $; $join($sort($keys($form)[$contains($, /^MediaUrl[0-9]+$/)]).($type := $lookup($form, "MediaContentType" & $substringAfter($, "MediaUrl")); "Media: " & $lookup($form, $) & ($type ? " (" & $type & ")" : "")), "\\n")) }}',
        ]),
        respond: {
          waitMs: o.replyWaitMs,
          contentType: 'application/xml',
          body: '<?xml version="1.0" encoding="UTF-8"?><Response><Message>{{ reply }}</Message></Response>',
          fallback: { status: 200, body: '<?xml version="1.0" encoding="UTF-8"?><Response/>' },
        },
      }),
      on('call-status-skip', `$exists(CallStatus) and $not(CallStatus in ${JSON.stringify(statuses)})`, { action: 'skip' }),
      on('call-status', '$exists(CallStatus)', {
        action: 'wake',
        wakeMode: 'next-heartbeat',
        idempotencyKey: 'twilio:{{ CallSid }}:{{ CallStatus }}',
        textTemplate: 'Call {{ Direction ? Direction & " " : "" }}from {{ From }} to {{ To }}: {{ CallStatus }}{{ CallDuration ? " (" & CallDuration & " s)" : "" }}',
      }),
    ];
  },
});
