import { definePreset, notListed, presetCommonOptions, presetRoutes, messageLines } from '../../src/plugin-sdk/sdk.js';

/**
 * Microsoft Graph change notifications (https://learn.microsoft.com/en-us/graph/change-notifications-delivery-webhooks):
 * a subscription's `notificationUrl` (and `lifecycleNotificationUrl`) pointed here, its
 * `clientState` the preset's `secret`. Graph first validates the URL with a POST carrying
 * `?validationToken=`: answered 200, text/plain, with the token, within Graph's 10 s, no run.
 * Notifications come batched in `value`; routed by the first one's `changeType` (types not in
 * `events` answered 204): an agent run per resource, listing every notification of the batch.
 * A lifecycle notification (reauthorizationRequired, subscriptionRemoved, missed) is a wake line.
 * Graph sends no delivery id: the key is the batch's subscriptions, change types, resources and
 * their etags, the same on Graph's redelivery.
 */
export const msgraphPreset = definePreset({
  path: 'msgraph',
  verifies: 'clientState of every notification equal to `secret` (the subscription\'s clientState); the validationToken handshake',
  summary: 'Microsoft Graph change notifications (mail, events, Teams messages, users, ...): an agent run per changed resource; lifecycle notices a wake line; the validationToken handshake answered.',
  docs: 'https://learn.microsoft.com/en-us/graph/change-notifications-delivery-webhooks',
  options: presetCommonOptions,
  requires: ['secret'],
  mappings: (o) => {
    const events = o.events ?? ['created', 'updated', 'deleted'];
    const auth = { type: 'msgraph' as const, secret: o.secret! };
    const on = presetRoutes({
      prefix: 'msgraph',
      path: o.path,
      auth,
      idempotencyKey: 'msgraph:{{ $join(value.(subscriptionId & "/" & (lifecycleEvent ? lifecycleEvent : changeType) & "/" & resource & "/" & resourceData.`@odata.etag`), ",") }}',
    });
    const first = 'value[0]';
    const notification = '"- " & changeType & " " & resource & (resourceData.`@odata.type` ? " (" & $substringAfter(resourceData.`@odata.type`, "#") & ")" : "")';
    return [
      {
        id: 'msgraph-validation',
        match: { path: o.path, when: '$exists(query.validationToken)' },
        auth,
        // no idempotency key: each validation carries its own token, answered as it comes
        respond: { when: 'true', status: 200, contentType: 'text/plain; charset=utf-8', body: '{{ query.validationToken }}' },
      },
      on('lifecycle', `$exists(${first}.lifecycleEvent)`, {
        action: 'wake',
        wakeMode: 'next-heartbeat',
        textTemplate: 'Microsoft Graph subscription {{value[0].subscriptionId}}: {{value[0].lifecycleEvent}}{{ value[0].subscriptionExpirationDateTime ? " (expires " & value[0].subscriptionExpirationDateTime & ")" : "" }}',
      }),
      on('skip', notListed(`${first}.changeType`, events), { action: 'skip' }),
      on('change', 'true', {
        schema: { type: 'object', required: ['value'], properties: { value: { type: 'array', minItems: 1, items: { type: 'object', required: ['subscriptionId', 'changeType', 'resource'] } } } },
        name: `Microsoft Graph {{${first}.changeType}} {{ $substringAfter(${first}.resourceData.\`@odata.type\`, "#") ? $substringAfter(${first}.resourceData.\`@odata.type\`, "#") : ${first}.resource }}`,
        sessionKey: `hook:msgraph:{{${first}.resource}}`,
        messageTemplate: messageLines([
          `Microsoft Graph: {{ $count(value) }} change notification(s){{ ${first}.tenantId ? " for tenant " & ${first}.tenantId : "" }}, subscription {{${first}.subscriptionId}}:`,
          `{{ $join(value[$not($exists(lifecycleEvent))].(${notification}), "\\n") }}`,
          `{{ ${first}.resourceData.id ? "Resource id: " & ${first}.resourceData.id : "" }}`,
        ]),
      }),
    ];
  },
});
