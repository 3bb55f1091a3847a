import { definePreset, notListed, presetCommonOptions, presetRoutes, messageLines } from '../../src/plugin-sdk/sdk.js';

/** the events an agent sees unless `events` says otherwise */
export const VERCEL_DEFAULT_EVENTS = ['deployment.error', 'deployment.succeeded', 'deployment.canceled'];

/**
 * Vercel webhooks (https://vercel.com/docs/webhooks), signed with the webhook's
 * secret (x-vercel-signature, the hex HMAC-SHA1 of the body, https://vercel.com/docs/webhooks).
 * Routed by `type`: a failed deployment is an agent run, one session per project and target;
 * a succeeded or cancelled one is a wake line. The event's `id` is the key. Vercel's own
 * `payload` field is `payload.payload` in templates (`payload.` names the body).
 */
export const vercelPreset = definePreset({
  path: 'vercel',
  verifies: 'x-vercel-signature: hex HMAC-SHA1 of the body with `secret` (the webhook\'s secret, or an integration\'s client secret)',
  summary: 'Vercel deployments that fail become agent runs, one session per project; succeeded and cancelled ones a wake line.',
  docs: 'https://vercel.com/docs/webhooks',
  options: presetCommonOptions,
  requires: ['secret'],
  mappings: (o) => {
    const events = o.events ?? VERCEL_DEFAULT_EVENTS;
    const on = presetRoutes({ prefix: 'vercel', path: o.path, auth: { type: 'hmac-sha1', header: 'x-vercel-signature', secret: o.secret! }, idempotencyKey: 'vercel:{{ id }}' });
    const d = 'payload.payload.deployment';
    const target = '{{ payload.payload.target ? payload.payload.target : "preview" }}';
    return [
      on('skip', notListed('type', events), { action: 'skip' }),
      on('deployment-error', 'type = "deployment.error"', {
        name: `Vercel {{ ${d}.name ? ${d}.name : ${d}.id }}`,
        sessionKey: `hook:vercel:{{ payload.payload.project.id }}:${target}`,
        messageTemplate: messageLines([
          `Vercel deployment of {{ ${d}.name ? ${d}.name : ${d}.id }} (${target}) failed{{ ${d}.url ? ": https://" & ${d}.url : "" }}`,
          // a deployment made from the CLI or an API call has no git metadata (meta {})
          `{{ ($m := ${d}.meta; $m.githubCommitMessage ? "Commit" & ($type($m.githubCommitSha) = "string" and $m.githubCommitSha ? " " & $substring($m.githubCommitSha, 0, 7) : "") & ($m.githubCommitAuthorName ? " by " & $m.githubCommitAuthorName : "") & ($m.githubCommitRef ? " on " & $m.githubCommitRef : "") & ": " & $m.githubCommitMessage : "") }}`,
          '{{ payload.payload.links.deployment }}',
        ]),
      }),
      on('deployment', 'type in ["deployment.succeeded", "deployment.canceled", "deployment.ready", "deployment.promoted"]', {
        action: 'wake',
        wakeMode: 'next-heartbeat',
        textTemplate: `Vercel {{ ${d}.name ? ${d}.name : ${d}.id }} (${target}): {{ $substringAfter(type, "deployment.") }}{{ ${d}.url ? " https://" & ${d}.url : "" }}`,
      }),
      on('other', 'true', {
        name: 'Vercel {{ type }}',
        sessionKey: 'hook:vercel:{{ payload.payload.project.id ? payload.payload.project.id : type }}',
        messageTemplate: 'Vercel {{ type }}{{ payload.payload ? ": " & $string(payload.payload) : "" }}',
      }),
    ];
  },
});
