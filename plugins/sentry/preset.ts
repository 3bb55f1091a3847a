import { definePreset, notListed, presetCommonOptions, presetRoutes } from '../../src/plugin-sdk/sdk.js';

/** the resources (Sentry-Hook-Resource) an agent sees unless `events` says otherwise */
export const SENTRY_DEFAULT_EVENTS = ['issue', 'event_alert', 'metric_alert'];

/**
 * Sentry integration-platform webhooks (https://docs.sentry.io/integrations/integration-platform/webhooks/):
 * routed by the Sentry-Hook-Resource header and `action`, one session per issue (an alert on an
 * issue joins it; a metric alert per alert rule); resources not in `events`, installation
 * notices and issue changes other than created and unresolved (a regression) answered 204.
 * Request-ID names the delivery: it is the key.
 */
export const sentryPreset = definePreset({
  path: 'sentry',
  verifies: "Sentry-Hook-Signature: hex HMAC-SHA256 of the body with `secret` (the integration's client secret)",
  summary: 'Sentry issues (new or regressed), issue alerts and metric alerts become agent runs, one session per issue.',
  docs: 'https://docs.sentry.io/integrations/integration-platform/webhooks/',
  options: presetCommonOptions,
  requires: ['secret'],
  mappings: (o) => {
    const events = o.events ?? SENTRY_DEFAULT_EVENTS;
    const on = presetRoutes({ prefix: 'sentry', path: o.path, auth: { type: 'sentry', secret: o.secret! }, idempotencyKey: '{{ headers.request-id }}' });
    const resource = 'headers.sentry-hook-resource';
    return [
      on('skip', notListed(resource, events), { action: 'skip' }),
      on('issue', `${resource} = "issue" and action in ["created", "unresolved"]`, {
        name: 'Sentry {{data.issue.shortId}}',
        sessionKey: 'hook:sentry:issue:{{data.issue.id}}',
        messageTemplate: [
          '{{ action = "created" ? "New" : "Unresolved (" & (data.issue.substatus ? data.issue.substatus : "regressed") & ")" }} Sentry issue {{data.issue.shortId}} in {{data.issue.project.slug}}: {{data.issue.title}}',
          '{{data.issue.web_url}}',
          'Level {{data.issue.level}}, culprit {{data.issue.culprit}}, {{data.issue.count}} event(s), {{data.issue.userCount}} user(s), first seen {{data.issue.firstSeen}}',
        ].join('\n'),
      }),
      on('event-alert', `${resource} = "event_alert"`, {
        name: 'Sentry alert {{data.triggered_rule}}',
        sessionKey: 'hook:sentry:issue:{{data.event.issue_id}}',
        messageTemplate: [
          'Sentry alert "{{data.triggered_rule}}": {{data.event.title}}',
          '{{data.event.web_url}}',
          'Level {{data.event.level}}, culprit {{data.event.culprit}}{{ data.event.environment ? ", environment " & data.event.environment : "" }}{{ data.event.release ? ", release " & data.event.release : "" }}',
        ].join('\n'),
      }),
      on('metric-alert', `${resource} = "metric_alert"`, {
        name: 'Sentry metric alert {{data.metric_alert.alert_rule.name}}',
        sessionKey: 'hook:sentry:metric-alert:{{data.metric_alert.alert_rule.id}}',
        messageTemplate: ['Sentry metric alert {{action}}: {{data.description_title}}', '{{data.web_url}}', '{{data.description_text}}'].join('\n'),
      }),
      on('other', 'true', { action: 'skip' }),
    ];
  },
});
