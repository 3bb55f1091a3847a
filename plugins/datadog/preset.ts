import { definePreset, notListed, presetCommonOptions, presetRoutes, messageLines } from '../../src/plugin-sdk/sdk.js';

/**
 * Datadog's Webhooks integration (https://docs.datadoghq.com/integrations/webhooks/): the payload
 * is a template the user writes with Datadog's variables; this preset reads Datadog's default
 * payload (body, title, event_type, date, org, id) and, when given as the docs section
 * recommends, transition ($ALERT_TRANSITION), alert_id, priority, link, hostname, scope and
 * tags. Routed by the transition (read from the title's "[Triggered]" prefix when the payload
 * has none; `events`, default Triggered, Re-Triggered, Warn, No Data and Recovered): a monitor
 * that triggers is an agent run per monitor and scope, a recovery a wake line. $ID, the
 * notification's event id, is the key.
 */
export const datadogPreset = definePreset({
  path: 'datadog',
  verifies: 'the hook token, or with `secret` a token of its own: Authorization: Bearer <secret> (a custom header of the webhook)',
  summary: 'Datadog monitor notifications (Webhooks integration): a triggered monitor becomes an agent run per monitor and scope, a recovery a wake line.',
  docs: 'https://docs.datadoghq.com/integrations/webhooks/',
  options: presetCommonOptions,
  mappings: (o) => {
    const events = o.events ?? ['Triggered', 'Re-Triggered', 'Warn', 'No Data', 'Recovered'];
    const on = presetRoutes({
      prefix: 'datadog',
      path: o.path,
      ...(o.secret !== undefined && { auth: { type: 'bearer' as const, secret: o.secret } }),
      idempotencyKey: 'datadog:{{id}}',
    });
    // "[Triggered] CPU high on web-1" → "Triggered", when the payload carries no transition
    const transition = '(transition ? transition : $type(title) = "string" ? $match(title, /^\\[([^\\]]+)\\]/).groups[0])';
    const monitor = '{{ alert_id ? alert_id : $replace(title, /^\\[[^\\]]+\\]\\s*/, "") }}';
    return [
      on('skip', notListed(transition, events), { action: 'skip' }),
      on('recovered', `${transition} = "Recovered"`, {
        action: 'wake',
        wakeMode: 'next-heartbeat',
        textTemplate: 'Datadog recovered: {{ title ? $replace(title, /^\\[[^\\]]+\\]\\s*/, "") : "monitor " & alert_id }}{{ scope ? " (" & scope & ")" : "" }}{{ link ? " " & link : "" }}',
      }),
      on('alert', 'true', {
        name: 'Datadog {{ title ? $replace(title, /^\\[[^\\]]+\\]\\s*/, "") : "monitor " & alert_id }}',
        sessionKey: `hook:datadog:${monitor}{{ scope ? ":" & scope : hostname ? ":" & hostname : "" }}`,
        messageTemplate: messageLines([
          `Datadog {{ ${transition} ? ${transition} : "notification" }}{{ priority ? " (" & priority & ")" : "" }}: {{ title ? $replace(title, /^\\[[^\\]]+\\]\\s*/, "") : "monitor " & alert_id }}`,
          '{{ $join([scope ? "Scope: " & scope, hostname ? "Host: " & hostname, tags ? "Tags: " & tags, org.name ? "Org: " & org.name, date ? "At: " & ($type(date) = "number" ? $fromMillis(date) : date)], "\\n") }}',
          '{{ link ? link : "" }}',
          '',
          '{{ body ? $substring(body, 0, 3000) : "" }}',
        ]),
      }),
    ];
  },
});
