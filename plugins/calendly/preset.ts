import { definePreset, notListed, presetCommonOptions, presetRoutes, messageLines } from '../../src/plugin-sdk/sdk.js';

/** the events an agent sees unless `events` says otherwise */
export const CALENDLY_DEFAULT_EVENTS = ['invitee.created', 'invitee.canceled', 'invitee_no_show.created'];

/**
 * Calendly webhook subscriptions (https://developer.calendly.com/api-docs/overview/webhooks/webhook-payloads),
 * signed with the subscription's signing key (Calendly-Webhook-Signature `t=…,v1=…`,
 * https://developer.calendly.com/api-docs/overview/webhooks/webhook-signatures).
 * Routed by `event`; one session per scheduled event (a cancellation joins its booking). Calendly
 * sends no delivery id: the event and the invitee's URI make the key. Calendly's own `payload`
 * field is `payload.payload` in templates (`payload.` names the body).
 */
export const calendlyPreset = definePreset({
  path: 'calendly',
  verifies: "Calendly-Webhook-Signature: t=<seconds>,v1=<hex HMAC-SHA256 of t.body with `secret`, the webhook signing key>, t within 3 minutes",
  summary: 'Calendly bookings, cancellations and no-shows become agent runs, one session per scheduled event.',
  docs: 'https://developer.calendly.com/api-docs/overview/webhooks/webhook-payloads',
  options: presetCommonOptions,
  requires: ['secret'],
  mappings: (o) => {
    const events = o.events ?? CALENDLY_DEFAULT_EVENTS;
    const on = presetRoutes({
      prefix: 'calendly',
      path: o.path,
      auth: { type: 'calendly', secret: o.secret! },
      idempotencyKey: 'calendly:{{ event }}:{{ payload.payload.uri ? payload.payload.uri : payload.payload.invitee }}',
    });
    const p = 'payload.payload';
    return [
      on('skip', notListed('event', events), { action: 'skip' }),
      on('invitee', 'event in ["invitee.created", "invitee.canceled"]', {
        name: 'Calendly {{ payload.payload.scheduled_event.name }}',
        sessionKey: `hook:calendly:{{ ${p}.event ? ${p}.event : ${p}.scheduled_event.uri }}`,
        messageTemplate: messageLines([
          // a reschedule cancels the old booking (rescheduled true) and creates the new one
          `Calendly {{ event = "invitee.created" ? "booking" : ${p}.rescheduled ? "reschedule" : "cancellation" }}: {{ ${p}.name ? ${p}.name : "an invitee" }}{{ ${p}.email ? " <" & ${p}.email & ">" : "" }} {{ event = "invitee.created" ? "booked" : ${p}.rescheduled ? "moved" : "cancelled" }} {{ ${p}.scheduled_event.name ? "\\"" & ${p}.scheduled_event.name & "\\"" : "a meeting" }}{{ ${p}.scheduled_event.start_time ? (event != "invitee.created" and ${p}.rescheduled ? " from " : " on ") & ${p}.scheduled_event.start_time : "" }}{{ ${p}.timezone ? " (" & ${p}.timezone & ")" : "" }}{{ ${p}.cancellation.reason ? "\\nReason: " & ${p}.cancellation.reason : "" }}`,
          `{{ $join(${p}.questions_and_answers[question].(question & ": " & (answer ? answer : "(no answer)")), "\\n") }}`,
        ]),
      }),
      on('no-show', 'event = "invitee_no_show.created"', {
        name: 'Calendly no-show',
        sessionKey: 'hook:calendly:{{ payload.payload.event ? payload.payload.event : payload.payload.invitee }}',
        messageTemplate: 'Calendly no-show marked for invitee {{ payload.payload.invitee }}',
      }),
      on('other', 'true', {
        name: 'Calendly {{ event }}',
        sessionKey: 'hook:calendly:{{ event }}',
        messageTemplate: 'Calendly {{ event }}{{ payload.payload ? ": " & $string(payload.payload) : "" }}',
      }),
    ];
  },
});
