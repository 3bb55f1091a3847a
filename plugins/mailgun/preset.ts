import { definePreset, notListed, presetCommonOptions, presetRoutes, messageLines } from '../../src/plugin-sdk/sdk.js';

/** the events an agent sees unless `events` says otherwise: mail that did not reach, or a recipient who objected */
export const MAILGUN_DEFAULT_EVENTS = ['failed', 'complained', 'unsubscribed'];

/**
 * Mailgun webhooks (https://documentation.mailgun.com/docs/mailgun/user-manual/webhooks/webhook-payloads):
 * one event per POST, `{signature, "event-data"}`, routed by event-data.event; a failure Mailgun
 * will retry itself (severity temporary), and events not in `events` (accepted, delivered,
 * opened, clicked, ...) are answered 204. An agent run per event, one session per recipient;
 * event-data.id is the key, the same on Mailgun's retries.
 */
export const mailgunPreset = definePreset({
  path: 'mailgun',
  verifies: 'the body\'s signature: hex HMAC-SHA256 of timestamp then token with `secret` (the HTTP webhook signing key)',
  summary: 'Mailgun permanent failures, complaints and unsubscribes become agent runs, one session per recipient; deliveries, opens and clicks answered 204.',
  docs: 'https://documentation.mailgun.com/docs/mailgun/user-manual/webhooks/securing-webhooks',
  options: presetCommonOptions,
  requires: ['secret'],
  mappings: (o) => {
    const events = o.events ?? MAILGUN_DEFAULT_EVENTS;
    const e = '`event-data`';
    const on = presetRoutes({ prefix: 'mailgun', path: o.path, auth: { type: 'mailgun', secret: o.secret! }, idempotencyKey: `mailgun:{{ ${e}.id }}` });
    const headers = `${e}.message.headers`;
    return [
      on('skip', `${notListed(`${e}.event`, events)} or (${e}.event = "failed" and ${e}.severity = "temporary")`, { action: 'skip' }),
      on('event', 'true', {
        schema: { type: 'object', required: ['event-data'], properties: { 'event-data': { type: 'object', required: ['event', 'id'] } } },
        name: `Mailgun {{${e}.event}} {{ ${e}.recipient ? ${e}.recipient : "" }}`,
        sessionKey: `hook:mailgun:{{ ${e}.recipient ? ${e}.recipient : ${e}.id }}`,
        messageTemplate: messageLines([
          `Mailgun {{${e}.event}}{{ ${e}.severity ? " (" & ${e}.severity & ")" : "" }}{{ ${e}.recipient ? " for " & ${e}.recipient : "" }}{{ ${e}.timestamp ? " at " & $fromMillis($round(${e}.timestamp * 1000)) : "" }}`,
          `{{ $join([${headers}.subject ? "Subject: " & ${headers}.subject, ${headers}.from ? "From: " & ${headers}.from, ${headers}.\`message-id\` ? "Message-Id: " & ${headers}.\`message-id\`], "\\n") }}`,
          `{{ $join([${e}.reason ? "Reason: " & ${e}.reason, ${e}.\`delivery-status\`.code ? "Status " & ${e}.\`delivery-status\`.code & (${e}.\`delivery-status\`.description ? ": " & ${e}.\`delivery-status\`.description : (${e}.\`delivery-status\`.message ? ": " & ${e}.\`delivery-status\`.message : "")), $count(${e}.tags) > 0 ? "Tags: " & $join(${e}.tags, ", ")], "\\n") }}`,
        ]),
      }),
    ];
  },
});
