import { definePreset, notListed, presetCommonOptions, presetRoutes, messageLines } from '../../src/plugin-sdk/sdk.js';

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
    // an issue alert names its rule in triggered_rule (issue_alert.title in newer payloads)
    const rule = 'data.triggered_rule ? data.triggered_rule : data.issue_alert.title ? data.issue_alert.title : "(unnamed rule)"';
    // an issue alert's event names its project only in its API URL: .../projects/<org>/<project>/events/<id>/
    const project = '$match(data.event.url, /\\/projects\\/[^\\/]+\\/([^\\/]+)\\//).groups[0]';
    return [
      on('skip', notListed(resource, events), { action: 'skip' }),
      on('issue', `${resource} = "issue" and action in ["created", "unresolved"]`, {
        name: 'Sentry {{ data.issue.shortId ? data.issue.shortId : data.issue.id }}',
        sessionKey: 'hook:sentry:issue:{{data.issue.id}}',
        messageTemplate: messageLines([
          '{{ action = "created" ? "New" : "Unresolved (" & (data.issue.substatus ? data.issue.substatus : "regressed") & ")" }} Sentry issue {{ data.issue.shortId ? data.issue.shortId : data.issue.id }}{{ data.issue.project.slug ? " in " & data.issue.project.slug : "" }}{{ data.issue.title ? ": " & data.issue.title : "" }}',
          '{{ data.issue.web_url ? data.issue.web_url : "" }}',
          '{{ $join([data.issue.level ? "Level " & data.issue.level, data.issue.culprit ? "culprit " & data.issue.culprit, $exists(data.issue.count) ? data.issue.count & " event(s)", $exists(data.issue.userCount) ? data.issue.userCount & " user(s)", data.issue.firstSeen ? "first seen " & data.issue.firstSeen], ", ") }}',
        ]),
      }),
      on('event-alert', `${resource} = "event_alert"`, {
        name: `Sentry alert {{ ${rule} }}`,
        sessionKey: 'hook:sentry:issue:{{ data.event.issue_id ? data.event.issue_id : data.event.event_id }}',
        messageTemplate: messageLines([
          `Sentry alert "{{ ${rule} }}"{{ ${project} ? " in " & ${project} : "" }}{{ data.event.title ? ": " & data.event.title : "" }}`,
          '{{ data.event.web_url ? data.event.web_url : "" }}',
          '{{ $join([data.event.level ? "Level " & data.event.level, data.event.culprit ? "culprit " & data.event.culprit, data.event.environment ? "environment " & data.event.environment, data.event.release ? "release " & data.event.release], ", ") }}',
        ]),
      }),
      on('metric-alert', `${resource} = "metric_alert" and action != "resolved"`, {
        name: 'Sentry metric alert {{ data.metric_alert.alert_rule.name ? data.metric_alert.alert_rule.name : data.metric_alert.title }}',
        sessionKey: 'hook:sentry:metric-alert:{{data.metric_alert.alert_rule.id}}',
        messageTemplate: messageLines([
          'Sentry metric alert {{action}}{{ data.description_title ? ": " & data.description_title : "" }}',
          '{{ data.web_url ? data.web_url : "" }}',
          '{{ data.description_text ? data.description_text : "" }}',
        ]),
      }),
      // a resolution needs no agent: a line for the next heartbeat, as PagerDuty's and Alertmanager's
      on('metric-resolved', `${resource} = "metric_alert"`, {
        action: 'wake',
        wakeMode: 'next-heartbeat',
        textTemplate: 'Sentry metric alert resolved: {{ data.description_title ? data.description_title : data.metric_alert.alert_rule.name }}{{ data.web_url ? " (" & data.web_url & ")" : "" }}',
      }),
      on('other', 'true', { action: 'skip' }),
    ];
  },
});
