import { definePreset, notListed, presetCommonOptions, presetRoutes, messageLines } from '../../src/plugin-sdk/sdk.js';

/** the events (X-Event-Key) an agent sees unless `events` says otherwise */
export const BITBUCKET_DEFAULT_EVENTS = [
  'pullrequest:created',
  'pullrequest:fulfilled',
  'pullrequest:rejected',
  'pullrequest:comment_created',
  'pullrequest:changes_request_created',
  'issue:created',
  'issue:comment_created',
  'repo:commit_status_updated',
  'repo:push',
];

/**
 * Bitbucket Cloud repository webhooks (https://support.atlassian.com/bitbucket-cloud/docs/event-payloads/):
 * routed by X-Event-Key, one session per pull request (its comments and change requests join it),
 * per issue, per failed build and branch; a push is a wake line. Events not in `events`, builds
 * that did not fail and other keys are answered 204. X-Request-UUID names the delivery: the key.
 * A webhook with a secret carries X-Hub-Signature: sha256=<hex HMAC-SHA256 of the body>
 * (https://support.atlassian.com/bitbucket-cloud/docs/manage-webhooks/#Secure-webhooks).
 */
export const bitbucketPreset = definePreset({
  path: 'bitbucket',
  verifies: 'X-Hub-Signature: sha256=<hex HMAC-SHA256 of the body> with `secret` (the webhook\'s Secret)',
  summary: 'Bitbucket Cloud pull requests, their comments and change requests, issues and failed builds become agent runs, one session per pull request or issue; pushes a wake line.',
  docs: 'https://support.atlassian.com/bitbucket-cloud/docs/event-payloads/',
  options: presetCommonOptions,
  requires: ['secret'],
  mappings: (o) => {
    const events = o.events ?? BITBUCKET_DEFAULT_EVENTS;
    const key = 'headers.x-event-key';
    const on = presetRoutes({ prefix: 'bitbucket', path: o.path, auth: { type: 'hmac-sha256', header: 'x-hub-signature', secret: o.secret! }, idempotencyKey: '{{ headers.x-request-uuid }}' });
    const repo = '{{repository.full_name}}';
    const actor = '{{ actor.display_name ? " by " & actor.display_name : "" }}';
    const pr = 'pullrequest';
    const prVerb = `$lookup({"pullrequest:created": "opened", "pullrequest:fulfilled": "merged", "pullrequest:rejected": "declined"}, ${key})`;
    return [
      on('skip', notListed(key, events), { action: 'skip' }),
      on('pull-request', `${key} in ["pullrequest:created", "pullrequest:fulfilled", "pullrequest:rejected"]`, {
        name: `Bitbucket ${repo}#{{${pr}.id}}`,
        sessionKey: `hook:bitbucket:${repo}#{{${pr}.id}}`,
        messageTemplate: messageLines([
          `Pull request #{{${pr}.id}} {{ ${prVerb} }} in ${repo}${actor}{{ ${pr}.title ? ": " & ${pr}.title : "" }}`,
          `{{ ${pr}.links.html.href ? ${pr}.links.html.href : "" }}`,
          `{{ ${pr}.source.branch.name ? ${pr}.source.branch.name & " -> " & ${pr}.destination.branch.name : "" }}`,
          '',
          `{{ ${key} = "pullrequest:created" ? (${pr}.description ? $substring(${pr}.description, 0, 2000) : "(no description)") : (${pr}.reason ? "Reason: " & ${pr}.reason : "") }}`,
        ]),
      }),
      on('pull-request-comment', `${key} in ["pullrequest:comment_created", "pullrequest:changes_request_created"]`, {
        name: `Bitbucket ${repo}#{{${pr}.id}}`,
        sessionKey: `hook:bitbucket:${repo}#{{${pr}.id}}`,
        messageTemplate: messageLines([
          `{{ actor.display_name ? actor.display_name : "Someone" }} {{ ${key} = "pullrequest:comment_created" ? "commented on" : "requested changes on" }} pull request #{{${pr}.id}} in ${repo}{{ ${pr}.title ? " (" & ${pr}.title & ")" : "" }}:`,
          `{{ comment.links.html.href ? comment.links.html.href : ${pr}.links.html.href ? ${pr}.links.html.href : "" }}`,
          '',
          '{{ comment.content.raw ? $substring(comment.content.raw, 0, 2000) : "" }}',
        ]),
      }),
      on('issue', `${key} in ["issue:created", "issue:comment_created"]`, {
        name: `Bitbucket ${repo} issue #{{issue.id}}`,
        sessionKey: `hook:bitbucket:${repo}:issue:{{issue.id}}`,
        messageTemplate: messageLines([
          `{{ comment ? (actor.display_name ? actor.display_name : "Someone") & " commented on issue #" & issue.id : "Issue #" & issue.id & " opened" }} in ${repo}{{ comment ? "" : (actor.display_name ? " by " & actor.display_name : "") }}{{ issue.title ? ": " & issue.title : "" }}`,
          '{{ comment.links.html.href ? comment.links.html.href : issue.links.html.href ? issue.links.html.href : "" }}',
          '{{ comment ? "" : $join([issue.kind ? "Kind " & issue.kind, issue.priority ? "priority " & issue.priority], ", ") }}',
          '',
          '{{ comment ? (comment.content.raw ? $substring(comment.content.raw, 0, 2000) : "") : (issue.content.raw ? $substring(issue.content.raw, 0, 2000) : "(no description)") }}',
        ]),
      }),
      on('build-failed', `${key} = "repo:commit_status_updated" and commit_status.state = "FAILED"`, {
        name: `Bitbucket ${repo} {{ commit_status.name ? commit_status.name : commit_status.key }}`,
        sessionKey: `hook:bitbucket:${repo}:build:{{commit_status.key}}:{{ commit_status.refname ? commit_status.refname : commit_status.commit.hash }}`,
        messageTemplate: messageLines([
          `Build "{{ commit_status.name ? commit_status.name : commit_status.key }}" failed{{ commit_status.refname ? " on " & commit_status.refname : "" }} in ${repo}{{ commit_status.commit.hash ? " (commit " & $substring(commit_status.commit.hash, 0, 12) & ")" : "" }}`,
          '{{ commit_status.url ? commit_status.url : "" }}',
          '{{ commit_status.description ? commit_status.description : "" }}',
        ]),
      }),
      on('push', `${key} = "repo:push"`, {
        action: 'wake',
        wakeMode: 'next-heartbeat',
        textTemplate: `Bitbucket push to ${repo}${actor}: {{ $join(push.changes.(new ? new.name & " (" & $count(commits) & " commit(s)" & (new.target.message ? ", latest \\"" & $trim($substringBefore(new.target.message & "\\n", "\\n")) & "\\"" : "") & ")" : old.name & " deleted"), "; ") }}`,
      }),
      // a listed event in a state no mapping above takes (a build that passed or is in progress, ...)
      on('other', 'true', { action: 'skip' }),
    ];
  },
});
