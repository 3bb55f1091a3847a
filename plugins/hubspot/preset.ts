import { z } from 'zod';
import { definePreset, presetCommonOptions, presetRoutes, messageLines } from '../../src/plugin-sdk/sdk.js';

/** the subscription types an agent sees unless `events` says otherwise */
export const HUBSPOT_DEFAULT_EVENTS = ['contact.creation', 'deal.creation', 'deal.propertyChange', 'ticket.creation', 'conversation.newMessage'];

/**
 * HubSpot app webhooks (https://developers.hubspot.com/docs/api/webhooks), signed v3 with the
 * app's client secret (X-HubSpot-Signature-v3 over method, URL, body and timestamp,
 * https://developers.hubspot.com/docs/apps/legacy-apps/authentication/validating-requests).
 * HubSpot batches up to 100 events in one request, a JSON array: the batch is one agent run
 * listing the events of `events`, one session per portal; a batch with none of them is answered
 * 204. The events' `eventId`s (kept on a retry) make the key.
 */
export const hubspotPreset = definePreset({
  path: 'hubspot',
  verifies: "X-HubSpot-Signature-v3: base64 HMAC-SHA256 of POST + URL + body + X-HubSpot-Request-Timestamp with `secret` (the app's client secret), the timestamp within 5 minutes; `url`: the URL as configured in HubSpot, behind a proxy",
  summary: 'HubSpot CRM events (contacts, deals, tickets, conversations) become agent runs, a batch per run, one session per portal.',
  docs: 'https://developers.hubspot.com/docs/api/webhooks',
  options: presetCommonOptions.extend({
    url: z.string().url().optional().describe('The target URL exactly as configured in HubSpot, when a proxy changes the URL herald sees (HubSpot signs it).'),
  }),
  requires: ['secret'],
  mappings: (o) => {
    const events = JSON.stringify(o.events ?? HUBSPOT_DEFAULT_EVENTS);
    const on = presetRoutes({
      prefix: 'hubspot',
      path: o.path,
      auth: { type: 'hubspot', secret: o.secret!, ...(o.url !== undefined && { url: o.url }) },
      idempotencyKey: 'hubspot:{{ $join($payload.$string(eventId), ",") }}',
    });
    const listed = `$payload[subscriptionType in ${events}]`;
    const line =
      // a property set to nothing comes as propertyValue "" (cleared); a conversation's message by its messageId
      'subscriptionType & " " & $string(objectId) & (propertyName ? ": " & propertyName & ($exists(propertyValue) and propertyValue != "" and propertyValue != null ? " = " & $string(propertyValue) : " cleared") : "") & (messageId ? " message " & messageId : "") & (changeSource ? " (by " & changeSource & ")" : "") & ($type(occurredAt) = "number" ? " at " & $fromMillis(occurredAt) : "")';
    return [
      on('skip', `$count(${listed}) = 0`, { action: 'skip' }),
      on('events', 'true', {
        name: 'HubSpot {{ $payload[0].portalId }}',
        sessionKey: 'hook:hubspot:{{ $payload[0].portalId }}',
        messageTemplate: messageLines([`HubSpot portal {{ $payload[0].portalId }}: {{ $count(${listed}) }} event(s)`, `{{ $join(${listed}.(${line}), "\\n") }}`]),
      }),
    ];
  },
});
