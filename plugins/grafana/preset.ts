import { definePreset, notListed, presetCommonOptions, presetRoutes, messageLines } from '../../src/plugin-sdk/sdk.js';

/**
 * Grafana alerting's webhook contact point, in its own payload
 * (https://grafana.com/docs/grafana/latest/alerting/configure-notifications/manage-contact-points/integrations/webhook-notifier/):
 * Alertmanager's fields plus Grafana's `title`, `state`, `orgId` and, per alert, `values`,
 * `valueString`, `silenceURL`, `dashboardURL` and `panelURL`. Routed by `status`: a firing group is
 * an agent run per group (groupKey), a resolved one a wake line; a status not in `events` is
 * answered 204. Grafana sends no delivery id: the key is the group, its status and its alerts
 * (fingerprint and start), so a retried notification is taken once and a group firing again is new.
 */
export const grafanaPreset = definePreset({
  path: 'grafana',
  verifies: 'the hook token, or with `secret` a token of its own: Authorization: Bearer <secret> (the contact point\'s Authorization header, scheme Bearer)',
  summary: 'Grafana alert notifications (its webhook contact point): firing becomes an agent run per alert group with values and links, resolved a wake line.',
  docs: 'https://grafana.com/docs/grafana/latest/alerting/configure-notifications/manage-contact-points/integrations/webhook-notifier/',
  options: presetCommonOptions,
  mappings: (o) => {
    const events = o.events ?? ['firing', 'resolved'];
    const on = presetRoutes({
      prefix: 'grafana',
      path: o.path,
      ...(o.secret !== undefined && { auth: { type: 'bearer' as const, secret: o.secret } }),
      idempotencyKey: 'grafana:{{groupKey}}:{{status}}:{{ $join($sort(alerts[status = $$.status].(fingerprint & "@" & startsAt)), ",") }}',
    });
    const schema = {
      type: 'object',
      required: ['status', 'alerts', 'groupKey'],
      properties: {
        status: { enum: ['firing', 'resolved'] },
        groupKey: { type: 'string' },
        alerts: { type: 'array', minItems: 1, items: { type: 'object', required: ['status', 'labels'], properties: { labels: { type: 'object' } } } },
      },
    };
    // an alert's name: its alertname label (Grafana sets it to the rule's title), else its fingerprint
    const alertName = '(labels.alertname ? labels.alertname : "alert " & fingerprint)';
    const names = (status: string) => `$join($distinct(alerts[status = "${status}"].${alertName}), ", ")`;
    // the labels that tell an alert from the others of its group: all but alertname and Grafana's own (__...__, grafana_folder)
    const ownLabels = '($lab := labels; $join($keys($lab)[$not($ = "alertname" or $substring($, 0, 2) = "__" or $ = "grafana_folder")].($ & "=" & $lookup($lab, $)), ", "))';
    const alertLines = [
      '"- " & ' + alertName,
      `($l := ${ownLabels}; $l ? " (" & $l & ")" : "")`,
      '": " & (annotations.summary ? annotations.summary : annotations.description ? annotations.description : "no summary")',
      '(valueString ? "\\n  values: " & valueString : "")',
      '($links := $join([annotations.runbook_url ? "runbook " & annotations.runbook_url, dashboardURL ? "dashboard " & dashboardURL, panelURL ? "panel " & panelURL, silenceURL ? "silence " & silenceURL], ", "); $links ? "\\n  " & $links : "")',
    ].join(' & ');
    return [
      on('skip', notListed('status', events), { action: 'skip', schema }),
      on('firing', 'status = "firing"', {
        schema,
        name: `Grafana {{ commonLabels.alertname ? commonLabels.alertname : ${names('firing')} }}`,
        sessionKey: 'hook:grafana:{{groupKey}}',
        messageTemplate: messageLines([
          'Grafana: {{ $count(alerts[status = "firing"]) }} alert(s) firing{{ commonLabels.grafana_folder ? " in folder " & commonLabels.grafana_folder : "" }}{{ receiver ? " (contact point " & receiver & ")" : "" }}{{ truncatedAlerts > 0 ? ", " & truncatedAlerts & " more not sent" : "" }}:',
          `{{ $join(alerts[status = "firing"].(${alertLines}), "\\n") }}`,
          '{{ externalURL ? externalURL : "" }}',
        ]),
      }),
      on('resolved', 'true', {
        schema,
        action: 'wake',
        wakeMode: 'next-heartbeat',
        textTemplate: `Grafana resolved: {{ ${names('resolved')} }} ({{ $count(alerts[status = "resolved"]) }} alert(s){{ externalURL ? ", " & externalURL : "" }})`,
      }),
    ];
  },
});
