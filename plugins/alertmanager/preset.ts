import { definePreset, notListed, presetCommonOptions, presetRoutes, messageLines } from '../../src/plugin-sdk/sdk.js';

/**
 * Prometheus Alertmanager's webhook receiver (https://prometheus.io/docs/alerting/latest/configuration/#webhook_config),
 * also Grafana alerting's webhook contact point (the same shape): routed by `status`, one session
 * per alert group (groupKey). Firing is an agent run, resolved a wake line; a status not in
 * `events` is answered 204. Alertmanager sends no delivery id: the key is the group, its status
 * and the alerts in it (fingerprint and start), so a retried notification is taken once while an
 * alert joining the group, or the group firing again, is new. A reminder of an unchanged group
 * (repeat_interval) within hooks.idempotencyTtlHours is taken as a repeat.
 */
export const alertmanagerPreset = definePreset({
  path: 'alertmanager',
  verifies: 'the hook token, or with `secret` a token of its own: Authorization: Bearer <secret> (http_config.authorization.credentials)',
  summary: 'Prometheus Alertmanager (or Grafana) alert groups: firing becomes an agent run per group, resolved a wake line.',
  docs: 'https://prometheus.io/docs/alerting/latest/configuration/#webhook_config',
  options: presetCommonOptions,
  mappings: (o) => {
    const events = o.events ?? ['firing', 'resolved'];
    const on = presetRoutes({
      prefix: 'alertmanager',
      path: o.path,
      ...(o.secret !== undefined && { auth: { type: 'bearer' as const, secret: o.secret } }),
      idempotencyKey: 'alertmanager:{{groupKey}}:{{status}}:{{ $join($sort(alerts[status = $$.status].(fingerprint & "@" & startsAt)), ",") }}',
    });
    const schema = {
      type: 'object',
      required: ['status', 'alerts', 'groupKey'],
      properties: {
        status: { enum: ['firing', 'resolved'] },
        groupKey: { type: 'string' },
        alerts: { type: 'array', minItems: 1, items: { type: 'object', required: ['status', 'labels'], properties: { labels: { type: 'object', required: ['alertname'] } } } },
      },
    };
    return [
      on('skip', notListed('status', events), { action: 'skip', schema }),
      on('firing', 'status = "firing"', {
        schema,
        // a group of several rules (Grafana groups by folder) shares no alertname: its alerts' names
        name: 'Alerts {{ commonLabels.alertname ? commonLabels.alertname : groupLabels.alertname ? groupLabels.alertname : $join($distinct(alerts[status = "firing"].labels.alertname), ", ") }}',
        sessionKey: 'hook:alertmanager:{{groupKey}}',
        messageTemplate: messageLines([
          '{{ $count(alerts[status = "firing"]) }} alert(s) firing{{ commonLabels.severity ? ", severity " & commonLabels.severity : "" }}{{ receiver ? " (receiver " & receiver & ")" : "" }}:',
          '{{ $join(alerts[status = "firing"].("- " & labels.alertname & (labels.instance ? " on " & labels.instance : "") & ": " & (annotations.summary ? annotations.summary : annotations.description ? annotations.description : "no summary") & (annotations.runbook_url ? " (runbook " & annotations.runbook_url & ")" : "")), "\\n") }}',
          '{{ externalURL ? externalURL : "" }}',
        ]),
      }),
      on('resolved', 'true', {
        schema,
        action: 'wake',
        wakeMode: 'next-heartbeat',
        textTemplate: 'Resolved: {{ $join($distinct(alerts.labels.alertname), ", ") }} ({{ $count(alerts) }} alert(s){{ externalURL ? ", " & externalURL : "" }})',
      }),
    ];
  },
});
