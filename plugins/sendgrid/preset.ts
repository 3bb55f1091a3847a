import { definePreset, presetCommonOptions, presetRoutes, messageLines } from '../../src/plugin-sdk/sdk.js';

/** the events an agent sees unless `events` says otherwise: mail that did not reach, or a recipient who objected */
export const SENDGRID_DEFAULT_EVENTS = ['bounce', 'dropped', 'spamreport', 'unsubscribe', 'group_unsubscribe'];

/**
 * Twilio SendGrid's Event Webhook (https://www.twilio.com/docs/sendgrid/for-developers/tracking-events/event):
 * a JSON array of events per POST, signed with ECDSA when Signed Event Webhook is on. A batch
 * with at least one event in `events` is an agent run listing those events, one session per the
 * first such recipient; a batch of only other events (processed, delivered, open, click,
 * deferred, ...) is answered 204. Each event carries its sg_event_id: the batch's ids are the key,
 * the same on SendGrid's retry of the batch.
 */
export const sendgridPreset = definePreset({
  path: 'sendgrid',
  verifies: 'X-Twilio-Email-Event-Webhook-Signature: ECDSA (P-256, SHA-256) over X-Twilio-Email-Event-Webhook-Timestamp and the body, verified with `secret` (the Signed Event Webhook\'s verification key)',
  summary: 'SendGrid Event Webhook: bounces, drops, spam reports and unsubscribes become an agent run per batch, one session per recipient; opens, clicks and deliveries answered 204.',
  docs: 'https://www.twilio.com/docs/sendgrid/for-developers/tracking-events/getting-started-event-webhook-security-features',
  options: presetCommonOptions,
  requires: ['secret'],
  mappings: (o) => {
    const events = JSON.stringify(o.events ?? SENDGRID_DEFAULT_EVENTS);
    const on = presetRoutes({ prefix: 'sendgrid', path: o.path, auth: { type: 'sendgrid', secret: o.secret! }, idempotencyKey: 'sendgrid:{{ $join($.sg_event_id, ",") }}' });
    // the listed events of the batch (the payload is the array)
    const listed = `$[event in ${events}]`;
    const line = [
      '"- " & event & " for " & email',
      '(reason ? ": " & reason : "")',
      '(status ? " (status " & status & ")" : "")',
      '(type ? ", " & type : "")',
      '(category ? ", category " & $join($type(category) = "array" ? category : [category], "/") : "")',
      '(timestamp ? ", at " & $fromMillis(timestamp * 1000) : "")',
    ].join(' & ');
    return [
      on('skip', `$count(${listed}) = 0`, { action: 'skip' }),
      on('events', 'true', {
        schema: { type: 'array', minItems: 1, items: { type: 'object', required: ['event', 'email'] } },
        name: `SendGrid {{ $join($distinct(${listed}.event), ", ") }}`,
        sessionKey: `hook:sendgrid:{{ ${listed}[0].email }}`,
        messageTemplate: messageLines([`SendGrid: {{ $count(${listed}) }} event(s) to act on{{ $count($) > $count(${listed}) ? " (of " & $count($) & " in the batch)" : "" }}:`, `{{ $join(${listed}.(${line}), "\\n") }}`]),
      }),
    ];
  },
});
