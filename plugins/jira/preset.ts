import { definePreset, notListed, presetCommonOptions, presetRoutes, messageLines } from '../../src/plugin-sdk/sdk.js';

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
    // the issue's page: the site of its REST URL, then /browse/<key>
    const link = '{{ issue.self ? $substringBefore(issue.self, "/rest/") & "/browse/" & issue.key : "" }}';
    const who = '{{ user.displayName ? user.displayName : comment.author.displayName ? comment.author.displayName : "someone" }}';
    const summary = '{{issue.key}}{{ issue.fields.summary ? " " & issue.fields.summary : "" }}';
    // a field is an object with a name ({"name": "High"}), or in Atlassian's own example a bare string ("priority": "Minor")
    const named = (field: string) => `($type(${field}) = "string" ? ${field} : ${field}.name)`;
    const f = 'issue.fields';
    const facts = [
      `${named(`${f}.issuetype`)} ? ${named(`${f}.issuetype`)} & (${named(`${f}.project`)} ? " in " & ${named(`${f}.project`)} : "") : (${named(`${f}.project`)} ? "In " & ${named(`${f}.project`)})`,
      `${named(`${f}.status`)} ? "status " & ${named(`${f}.status`)}`,
      `${named(`${f}.priority`)} ? "priority " & ${named(`${f}.priority`)}`,
      `"assignee " & (${f}.assignee ? (${f}.assignee.displayName ? ${f}.assignee.displayName : "someone") : "none")`,
    ];
    return [
      on('skip', `${notListed('webhookEvent', events)} or user.accountType = "app" or comment.author.accountType = "app"`, { action: 'skip' }),
      on('issue', 'webhookEvent = "jira:issue_created" or (webhookEvent = "jira:issue_updated" and changelog.items[field in ["status", "assignee", "priority"]])', {
        name: 'Jira {{issue.key}}',
        sessionKey: 'hook:jira:{{issue.key}}',
        messageTemplate: messageLines([
          `{{ webhookEvent = "jira:issue_created" ? "Issue created" : "Issue updated" }} by ${who}: ${summary}`,
          link,
          `{{ $join([${facts.join(', ')}], ", ") }}`,
          '{{ changelog ? $join(changelog.items[field in ["status", "assignee", "priority"]].(field & ": " & (fromString ? fromString : "none") & " -> " & (toString ? toString : "none")), "\\n") : "" }}',
          '{{ webhookEvent = "jira:issue_created" and $type(issue.fields.description) = "string" ? $substring(issue.fields.description, 0, 2000) : "" }}',
        ]),
      }),
      on('comment', 'webhookEvent = "comment_created"', {
        name: 'Jira {{issue.key}}',
        sessionKey: 'hook:jira:{{issue.key}}',
        messageTemplate: messageLines([`${who} commented on ${summary}:`, link, '', '{{ $type(comment.body) = "string" ? $substring(comment.body, 0, 2000) : "(rich text comment)" }}']),
      }),
      on('other', 'true', { action: 'skip' }),
    ];
  },
});
