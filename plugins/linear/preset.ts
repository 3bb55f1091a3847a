import { definePreset, notListed, presetCommonOptions, presetRoutes, messageLines } from '../../src/plugin-sdk/sdk.js';

/** the entity types an agent sees unless `events` says otherwise */
export const LINEAR_DEFAULT_EVENTS = ['Issue', 'Comment'];

/**
 * Linear data-change webhooks (https://linear.app/developers/webhooks): routed by `type` and
 * `action`, one session per issue (a comment joins its issue); types not in `events`, removals
 * and updates that change nothing a person watches (only state, assignee or priority count)
 * answered 204. The Linear-Delivery header names the delivery: it is the key.
 */
export const linearPreset = definePreset({
  path: 'linear',
  verifies: "Linear-Signature: hex HMAC-SHA256 of the body with `secret` (the webhook's signing secret), and the body's webhookTimestamp within a minute",
  summary: 'Linear issues (created, state, assignee or priority changed) and comments become agent runs, one session per issue.',
  docs: 'https://linear.app/developers/webhooks',
  options: presetCommonOptions,
  requires: ['secret'],
  mappings: (o) => {
    const events = o.events ?? LINEAR_DEFAULT_EVENTS;
    const on = presetRoutes({ prefix: 'linear', path: o.path, auth: { type: 'linear', secret: o.secret! }, idempotencyKey: '{{ headers.linear-delivery ? headers.linear-delivery : webhookId & ":" & webhookTimestamp }}' });
    return [
      on('skip', `${notListed('type', events)} or action = "remove"`, { action: 'skip' }),
      on('issue', 'type = "Issue" and (action = "create" or (action = "update" and ($exists(updatedFrom.stateId) or $exists(updatedFrom.assigneeId) or $exists(updatedFrom.priority))))', {
        name: 'Linear {{data.identifier}}',
        sessionKey: 'hook:linear:{{data.identifier}}',
        messageTemplate: messageLines([
          '{{ action = "create" ? "Issue created" : "Issue updated" }}{{ actor.name ? " by " & actor.name : "" }}: {{data.identifier}}{{ data.title ? " " & data.title : "" }}',
          '{{ url ? url : "" }}',
          '{{ $join([data.team.name ? "Team " & data.team.name, data.state.name ? "state " & data.state.name, data.priorityLabel ? "priority " & data.priorityLabel, "assignee " & (data.assignee.name ? data.assignee.name : "none"), $count(data.labels) > 0 ? "labels " & $join(data.labels.name, ", ")], ", ") }}',
          '',
          '{{ action = "create" ? (data.description ? $substring(data.description, 0, 2000) : "(no description)") : "" }}',
        ]),
      }),
      on('comment', 'type = "Comment" and action = "create"', {
        name: 'Linear {{ data.issue.identifier ? data.issue.identifier : data.issueId }}',
        sessionKey: 'hook:linear:{{ data.issue.identifier ? data.issue.identifier : data.issueId }}',
        messageTemplate: messageLines([
          '{{ data.user.name ? data.user.name : actor.name ? actor.name : "Someone" }} commented on {{ data.issue.identifier ? data.issue.identifier : data.issueId }}{{ data.issue.title ? " " & data.issue.title : "" }}:',
          '{{ url ? url : "" }}',
          '',
          '{{ data.body ? $substring(data.body, 0, 2000) : "" }}',
        ]),
      }),
      on('other', 'true', { action: 'skip' }),
    ];
  },
});
