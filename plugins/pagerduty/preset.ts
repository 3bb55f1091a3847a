import { definePreset, notListed, presetCommonOptions, presetRoutes, messageLines } from '../../src/plugin-sdk/sdk.js';

/** the event types an agent sees unless `events` says otherwise */
export const PAGERDUTY_DEFAULT_EVENTS = ['incident.triggered', 'incident.escalated', 'incident.reopened', 'incident.annotated', 'incident.resolved'];

/**
 * PagerDuty v3 webhook subscriptions (https://github.com/PagerDuty/developer-docs/blob/main/docs/webhooks/01-Overview.md):
 * routed by `event.event_type`, one session per incident; types not in `events` (and the
 * `pagey.ping` a subscription test sends) answered 204; `incident.resolved` is a wake line. The
 * event id is the same on a retry: it is the key.
 */
export const pagerdutyPreset = definePreset({
  path: 'pagerduty',
  verifies: 'X-PagerDuty-Signature: v1=<hex HMAC-SHA256 of the body> with `secret` (the subscription\'s secret), any of several',
  summary: 'PagerDuty incidents (triggered, escalated, reopened, annotated) become agent runs, one session per incident; a resolution is a wake line.',
  docs: 'https://github.com/PagerDuty/developer-docs/blob/main/docs/webhooks/04-Signatures.md',
  options: presetCommonOptions,
  requires: ['secret'],
  mappings: (o) => {
    const events = o.events ?? PAGERDUTY_DEFAULT_EVENTS;
    const on = presetRoutes({ prefix: 'pagerduty', path: o.path, auth: { type: 'pagerduty', secret: o.secret! }, idempotencyKey: '{{ event.id }}' });
    // incident events carry the incident as data; a note, a status update and a responder carry data.incident
    const incident = 'event.data.incident ? event.data.incident : event.data';
    return [
      on('skip', notListed('event.event_type', events), { action: 'skip' }),
      on('resolved', 'event.event_type = "incident.resolved"', {
        action: 'wake',
        wakeMode: 'next-heartbeat',
        textTemplate: 'PagerDuty incident #{{event.data.number}} resolved{{ event.agent ? " by " & event.agent.summary : "" }}{{ event.data.title ? ": " & event.data.title : "" }}{{ event.data.html_url ? " " & event.data.html_url : "" }}',
      }),
      on('incident', 'true', {
        name: 'PagerDuty {{ event.data.number ? "#" & event.data.number : event.data.incident.summary }}',
        sessionKey: `hook:pagerduty:{{ (${incident}).id }}`,
        messageTemplate: messageLines([
          'PagerDuty {{event.event_type}}{{ event.agent ? " by " & event.agent.summary : "" }}: {{ event.data.title ? "#" & event.data.number & " " & event.data.title : event.data.incident.summary }}',
          `{{ (${incident}).html_url ? (${incident}).html_url : "" }}`,
          '{{ event.data.type = "incident" ? $join([event.data.service.summary ? "Service " & event.data.service.summary, event.data.urgency ? "urgency " & event.data.urgency, event.data.priority ? "priority " & event.data.priority.summary, "assigned to " & ($count(event.data.assignees) > 0 ? $join(event.data.assignees.summary, ", ") : "nobody")], ", ") : "" }}',
          '{{ event.data.content ? "Note: " & event.data.content : event.data.message ? event.data.message : "" }}',
        ]),
      }),
    ];
  },
});
