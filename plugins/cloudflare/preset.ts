import { definePreset, presetCommonOptions, presetRoutes, messageLines } from '../../src/plugin-sdk/sdk.js';

/**
 * Cloudflare Notifications sent to a generic webhook destination
 * (https://developers.cloudflare.com/notifications/get-started/configure-webhooks/): the
 * destination's secret arrives as is in cf-webhook-auth, compared in constant time (Cloudflare
 * signs nothing, so only TLS keeps it secret).
 * - The test message Cloudflare posts when the destination is saved (`text` alone, no
 *   `alert_type`) is answered 204.
 * - An alert is an agent run, one session per alert type; `events` lists the alert types
 *   (`alert_type`) that reach an agent (default: all). Cloudflare sends no delivery id: the
 *   policy, the alert type and `ts` make the key.
 */
export const cloudflarePreset = definePreset({
  path: 'cloudflare',
  verifies: 'cf-webhook-auth equal to `secret` (the webhook destination\'s secret), constant time',
  summary: 'Cloudflare notifications (SSL, DDoS, health checks, usage, ...) become agent runs, one session per alert type.',
  docs: 'https://developers.cloudflare.com/notifications/get-started/configure-webhooks/',
  options: presetCommonOptions,
  requires: ['secret'],
  mappings: (o) => {
    const on = presetRoutes({
      prefix: 'cloudflare',
      path: o.path,
      auth: { type: 'shared-secret', header: 'cf-webhook-auth', secret: o.secret! },
      idempotencyKey: 'cloudflare:{{ policy_id }}:{{ alert_type }}:{{ ts }}',
    });
    return [
      on('test', '$not($exists(alert_type))', { action: 'skip' }),
      ...(o.events ? [on('skip', `$not(alert_type in ${JSON.stringify(o.events)})`, { action: 'skip' })] : []),
      on('alert', 'true', {
        name: 'Cloudflare {{ name ? name : alert_type }}',
        sessionKey: 'hook:cloudflare:{{ alert_type }}',
        messageTemplate: messageLines([
          'Cloudflare alert {{ name ? "\\"" & name & "\\" (" & alert_type & ")" : alert_type }}{{ account_id ? " for account " & account_id : "" }}',
          '{{ text }}',
          // the alert's details without the fields it left null or empty
          '{{ ($d := $sift(data, function($v) { $exists($v) and $v != null and $v != "" }); $count($keys($d)) > 0 ? $string($d) : "") }}',
        ]),
      }),
    ];
  },
});
