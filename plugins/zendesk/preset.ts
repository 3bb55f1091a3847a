import { definePreset, notListed, presetCommonOptions, presetRoutes, messageLines } from '../../src/plugin-sdk/sdk.js';

/** the event types (without the zen:event-type: prefix) an agent sees unless `events` says otherwise */
export const ZENDESK_DEFAULT_EVENTS = ['ticket.created', 'ticket.comment_added', 'ticket.priority_changed'];

/**
 * Zendesk event webhooks (https://developer.zendesk.com/api-reference/webhooks/event-types/webhook-event-types/),
 * signed with the webhook's signing secret (X-Zendesk-Webhook-Signature, base64 HMAC-SHA256 of
 * X-Zendesk-Webhook-Signature-Timestamp followed by the body,
 * https://developer.zendesk.com/documentation/webhooks/verifying/).
 * Routed by `type` (`zen:event-type:ticket.created`, …); one session per ticket. The event's `id`
 * is the key. Zendesk states no window for the timestamp: herald's five minutes apply.
 */
export const zendeskPreset = definePreset({
  path: 'zendesk',
  verifies: 'X-Zendesk-Webhook-Signature: base64 HMAC-SHA256 of X-Zendesk-Webhook-Signature-Timestamp + body with `secret` (the signing secret), the timestamp within 5 minutes',
  summary: 'Zendesk tickets created, commented on or re-prioritised become agent runs, one session per ticket.',
  docs: 'https://developer.zendesk.com/documentation/webhooks/',
  options: presetCommonOptions,
  requires: ['secret'],
  mappings: (o) => {
    const events = (o.events ?? ZENDESK_DEFAULT_EVENTS).map((event) => (event.startsWith('zen:') ? event : `zen:event-type:${event}`));
    const on = presetRoutes({
      prefix: 'zendesk',
      path: o.path,
      auth: { type: 'hmac-sha256', header: 'X-Zendesk-Webhook-Signature', encoding: 'base64', timestampHeader: 'X-Zendesk-Webhook-Signature-Timestamp', secret: o.secret! },
      idempotencyKey: 'zendesk:{{ id }}',
    });
    // a ticket made over SMS, voice or the API may have no subject, and no priority until someone sets one
    const ticket =
      'Zendesk ticket #{{ detail.id }}{{ detail.subject ? " \\"" & detail.subject & "\\"" : "" }}{{ ($f := $join([$type(detail.status) = "string" and detail.status ? $lowercase(detail.status), $type(detail.priority) = "string" and detail.priority ? $lowercase(detail.priority) & " priority"], ", "); $f ? " (" & $f & ")" : "") }}';
    return [
      on('skip', notListed('type', events), { action: 'skip' }),
      on('ticket', '$substringBefore(type, ".") = "zen:event-type:ticket"', {
        name: 'Zendesk #{{ detail.id }}',
        sessionKey: 'hook:zendesk:ticket:{{ detail.id }}',
        messageTemplate: messageLines([
          `${ticket}: {{ type = "zen:event-type:ticket.created" ? "created" : type = "zen:event-type:ticket.comment_added" ? "new " & (event.comment.is_public = false ? "internal note" : "comment") : $replace($substringAfter(type, "ticket."), "_", " ") & (event.previous ? " from " & event.previous & " to " & event.current : "") }}`,
          '{{ type = "zen:event-type:ticket.comment_added" ? event.comment.body : type = "zen:event-type:ticket.created" ? detail.description : "" }}',
        ]),
      }),
      on('other', 'true', {
        name: 'Zendesk {{ $substringAfter(type, "zen:event-type:") }}',
        sessionKey: 'hook:zendesk:{{ subject }}',
        messageTemplate: 'Zendesk {{ $substringAfter(type, "zen:event-type:") }} for {{ subject }}',
      }),
    ];
  },
});
