import { definePreset, notListed, presetCommonOptions, presetRoutes } from '../../src/plugin-sdk/sdk.js';

/** the events an agent sees unless `events` says otherwise (webhookEvent) */
export const JIRA_DEFAULT_EVENTS = ['jira:issue_created', 'jira:issue_updated', 'comment_created'];

/**
 * Jira Cloud webhooks (https://developer.atlassian.com/cloud/jira/platform/webhooks/): routed by
 * `webhookEvent`, one session per issue (a comment joins its issue); events not in `events`,
 * events an app's user caused (accountType app) and issue updates that change neither status,
 * assignee nor priority answered 204. X-Atlassian-Webhook-Identifier is the same on a retry: it
 * is the key.
 */
export const jiraPreset = definePreset({
  path: 'jira',
  verifies: "X-Hub-Signature: sha256=<hex HMAC-SHA256 of the body> with `secret` (the webhook's Secret)",
  summary: 'Jira issues (created; status, assignee or priority changed) and comments become agent runs, one session per issue.',
  docs: 'https://developer.atlassian.com/cloud/jira/platform/webhooks/#secure-admin-webhooks',
  options: presetCommonOptions,
  requires: ['secret'],
  mappings: (o) => {
    const events = o.events ?? JIRA_DEFAULT_EVENTS;
    const on = presetRoutes({ prefix: 'jira', path: o.path, auth: { type: 'jira', secret: o.secret! }, idempotencyKey: '{{ headers.x-atlassian-webhook-identifier }}' });
    // the page: the site of its REST URL, then /browse/<key>
    const link = '{{ $substringBefore(issue.self, "/rest/") }}/browse/{{issue.key}}';
    const who = '{{ user.displayName ? user.displayName : comment.author.displayName }}';
    return [
      on('skip', `${notListed('webhookEvent', events)} or user.accountType = "app" or comment.author.accountType = "app"`, { action: 'skip' }),
      on('issue', 'webhookEvent = "jira:issue_created" or (webhookEvent = "jira:issue_updated" and changelog.items[field in ["status", "assignee", "priority"]])', {
        name: 'Jira {{issue.key}}',
        sessionKey: 'hook:jira:{{issue.key}}',
        messageTemplate: [
          `{{ webhookEvent = "jira:issue_created" ? "Issue created" : "Issue updated" }} by ${who}: {{issue.key}} {{issue.fields.summary}}`,
          link,
          '{{issue.fields.issuetype.name}} in {{issue.fields.project.name}}, status {{issue.fields.status.name}}, priority {{issue.fields.priority.name}}, assignee {{ issue.fields.assignee ? issue.fields.assignee.displayName : "none" }}',
          '{{ changelog ? $join(changelog.items[field in ["status", "assignee", "priority"]].(field & ": " & (fromString ? fromString : "none") & " -> " & (toString ? toString : "none")), "\\n") : "" }}',
          '{{ webhookEvent = "jira:issue_created" and $type(issue.fields.description) = "string" ? $substring(issue.fields.description, 0, 2000) : "" }}',
        ].join('\n'),
      }),
      on('comment', 'webhookEvent = "comment_created"', {
        name: 'Jira {{issue.key}}',
        sessionKey: 'hook:jira:{{issue.key}}',
        messageTemplate: [`${who} commented on {{issue.key}} {{issue.fields.summary}}:`, link, '', '{{ $type(comment.body) = "string" ? $substring(comment.body, 0, 2000) : "(rich text comment)" }}'].join('\n'),
      }),
      on('other', 'true', { action: 'skip' }),
    ];
  },
});
