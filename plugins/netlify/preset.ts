import { definePreset, notListed, presetCommonOptions, presetRoutes, messageLines } from '../../src/plugin-sdk/sdk.js';

/**
 * Netlify deploy notifications and form submission notifications, outgoing webhooks with a JWS
 * secret token (https://docs.netlify.com/site-deploys/deploy-notifications/#outgoing-webhooks).
 * The body is the deploy (or the submission) itself; a deploy is routed by its `state` (`events`,
 * default error and ready): a failed deploy is an agent run per site and branch, a published one
 * a wake line, the other states (building, enqueued, ...) answered 204. A form submission is an
 * agent run per submission. Netlify sends no delivery id: the key is the deploy and its state, or
 * the submission's id.
 */
export const netlifyPreset = definePreset({
  path: 'netlify',
  verifies: 'X-Webhook-Signature: a JWS (HS256) with `secret` (the notification\'s JWS secret token) whose claims are iss "netlify" and sha256, the hex SHA-256 of the body',
  summary: 'Netlify failed deploys become agent runs, one session per site and branch, published deploys a wake line; form submissions agent runs.',
  docs: 'https://docs.netlify.com/site-deploys/deploy-notifications/#payload-signature',
  options: presetCommonOptions,
  requires: ['secret'],
  mappings: (o) => {
    const states = o.events ?? ['error', 'ready'];
    const on = presetRoutes({ prefix: 'netlify', path: o.path, auth: { type: 'netlify', secret: o.secret! }, idempotencyKey: 'netlify:{{id}}:{{ form_name ? "submission" : state }}' });
    const site = '{{ name ? name : site_id }}';
    return [
      on('form-submission', '$exists(form_name)', {
        name: 'Netlify form {{form_name}}',
        sessionKey: 'hook:netlify:form:{{id}}',
        messageTemplate: messageLines([
          `New submission of form "{{form_name}}"{{ site_url ? " on " & site_url : site_id ? " on " & site_id : "" }}{{ created_at ? " at " & created_at : "" }}:`,
          // the fields the visitor filled in: Netlify's own (ip, user agent, referrer) and empty ones left out
          '{{ $type(data) = "object" ? $join($each(data, function($v, $k) { $k in ["ip", "user_agent", "referrer"] or $type($v) = "null" or $v = "" ? undefined : "- " & $k & ": " & ($type($v) = "string" ? $v : $string($v)) }), "\\n") : "" }}',
        ]),
      }),
      on('skip', notListed('state', states), { action: 'skip' }),
      on('deploy-failed', 'state = "error"', {
        name: `Netlify ${site} deploy failed`,
        sessionKey: `hook:netlify:${site}:{{ branch ? branch : context }}`,
        messageTemplate: messageLines([
          `Netlify deploy of ${site} failed{{ branch ? " on " & branch : "" }}{{ context ? " (" & context & ")" : "" }}{{ commit_ref ? ", commit " & $substring(commit_ref, 0, 12) : "" }}{{ title ? ": " & title : "" }}`,
          '{{ error_message ? "Error: " & error_message : "" }}',
          '{{ admin_url ? admin_url & "/deploys/" & id : "" }}',
          '{{ commit_url ? commit_url : "" }}',
        ]),
      }),
      on('deploy-ready', 'state = "ready"', {
        action: 'wake',
        wakeMode: 'next-heartbeat',
        textTemplate: `Netlify deploy of ${site} published{{ branch ? " from " & branch : "" }}{{ context ? " (" & context & ")" : "" }}{{ deploy_ssl_url ? ": " & deploy_ssl_url : "" }}`,
      }),
      on('other', 'true', { action: 'skip' }),
    ];
  },
});
