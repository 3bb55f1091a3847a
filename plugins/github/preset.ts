import { definePreset, notListed, presetCommonOptions, presetRoutes, messageLines } from '../../src/plugin-sdk/sdk.js';

/** the events an agent sees unless `events` says otherwise (X-GitHub-Event names) */
export const GITHUB_DEFAULT_EVENTS = ['issues', 'issue_comment', 'pull_request', 'pull_request_review', 'discussion', 'discussion_comment', 'release', 'push', 'workflow_run'];

/**
 * GitHub repository or organisation webhooks (https://docs.github.com/en/webhooks/webhook-events-and-payloads):
 * routed by X-GitHub-Event and the payload's `action`, one session per issue or pull request (a PR
 * is an issue number too, so its comments join it), per discussion, per release. `ping`, events
 * a GitHub App or bot caused (sender.type Bot), events not in `events` and the actions below do
 * not list are answered 204. X-GitHub-Delivery stays the same on a redelivery: it is the key.
 */
export const githubPreset = definePreset({
  path: 'github',
  verifies: 'X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body> with `secret` (the webhook\'s Secret)',
  summary: 'GitHub issues, pull requests, reviews, comments, discussions, releases and failed workflow runs become agent runs, one session per issue or PR; pushes a wake line.',
  docs: 'https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries',
  options: presetCommonOptions,
  requires: ['secret'],
  mappings: (o) => {
    const events = o.events ?? GITHUB_DEFAULT_EVENTS;
    const on = presetRoutes({ prefix: 'github', path: o.path, auth: { type: 'github', secret: o.secret! }, idempotencyKey: '{{ headers.x-github-delivery }}' });
    const event = (name: string, actions?: string[]) => `headers.x-github-event = "${name}"${actions ? ` and action in ${JSON.stringify(actions)}` : ''}`;
    const repo = '{{repository.full_name}}';
    const by = '{{ sender.login ? " by " & sender.login : "" }}';
    const byNumber = (number: string) => `hook:github:${repo}#{{${number}}}`;
    return [
      on('skip', `headers.x-github-event = "ping" or sender.type = "Bot" or ${notListed('headers.x-github-event', events)}`, { action: 'skip' }),
      on('issue', event('issues', ['opened', 'reopened', 'closed']), {
        name: `GitHub ${repo}#{{issue.number}}`,
        sessionKey: byNumber('issue.number'),
        messageTemplate: messageLines([
          `Issue #{{issue.number}} {{action}} in ${repo}${by}{{ issue.title ? ": " & issue.title : "" }}`,
          '{{issue.html_url}}',
          'Labels: {{ $count(issue.labels) > 0 ? $join(issue.labels.name, ", ") : "none" }}',
          '',
          '{{ action = "closed" ? "Closed as " & (issue.state_reason ? issue.state_reason : "completed") & "." : (issue.body ? $substring(issue.body, 0, 2000) : "(no description)") }}',
        ]),
      }),
      on('issue-comment', event('issue_comment', ['created']), {
        name: `GitHub ${repo}#{{issue.number}}`,
        sessionKey: byNumber('issue.number'),
        messageTemplate: messageLines([
          `{{ comment.user.login ? comment.user.login : "Someone" }} commented on {{ issue.pull_request ? "pull request" : "issue" }} #{{issue.number}} in ${repo}{{ issue.title ? " (" & issue.title & ")" : "" }}:`,
          '{{ comment.html_url ? comment.html_url : "" }}',
          '',
          '{{ comment.body ? $substring(comment.body, 0, 2000) : "" }}',
        ]),
      }),
      on('pull-request', event('pull_request', ['opened', 'reopened', 'ready_for_review', 'closed']), {
        name: `GitHub ${repo}#{{pull_request.number}}`,
        sessionKey: byNumber('pull_request.number'),
        messageTemplate: messageLines([
          `Pull request #{{pull_request.number}} {{ action = "closed" ? (pull_request.merged ? "merged" : "closed without merging") : action }} in ${repo}${by}{{ pull_request.title ? ": " & pull_request.title : "" }}`,
          '{{pull_request.html_url}}',
          '{{pull_request.head.ref}} -> {{pull_request.base.ref}}{{ pull_request.draft ? " (draft)" : "" }}',
          '',
          '{{ action = "closed" ? "" : (pull_request.body ? $substring(pull_request.body, 0, 2000) : "(no description)") }}',
        ]),
      }),
      on('review', event('pull_request_review', ['submitted']), {
        name: `GitHub ${repo}#{{pull_request.number}}`,
        sessionKey: byNumber('pull_request.number'),
        messageTemplate: messageLines([
          `{{ review.user.login ? review.user.login : "Someone" }} reviewed pull request #{{pull_request.number}} in ${repo}{{ pull_request.title ? " (" & pull_request.title & ")" : "" }}: {{ review.state ? $lowercase(review.state) : "reviewed" }}`,
          '{{review.html_url}}',
          '',
          '{{ review.body ? $substring(review.body, 0, 2000) : "" }}',
        ]),
      }),
      on('discussion', `${event('discussion', ['created', 'answered'])} or ${event('discussion_comment', ['created'])}`, {
        name: `GitHub ${repo} discussion #{{discussion.number}}`,
        sessionKey: `hook:github:${repo}:discussion:{{discussion.number}}`,
        messageTemplate: messageLines([
          `{{ comment ? comment.user.login & " commented on" : "Discussion " & action & ":" }} discussion #{{discussion.number}} in ${repo} ({{discussion.category.name}}): {{discussion.title}}`,
          '{{ comment ? comment.html_url : discussion.html_url }}',
          '',
          '{{ $substring(comment ? comment.body : (action = "answered" ? answer.body : discussion.body), 0, 2000) }}',
        ]),
      }),
      on('release', event('release', ['published']), {
        name: `GitHub ${repo} {{release.tag_name}}`,
        sessionKey: `hook:github:${repo}:release:{{release.tag_name}}`,
        messageTemplate: messageLines([
          `Release {{ release.name ? release.name : release.tag_name }} published in ${repo}${by}{{ release.prerelease ? " (pre-release)" : "" }}`,
          '{{release.html_url}}',
          '',
          '{{ release.body ? $substring(release.body, 0, 2000) : "(no release notes)" }}',
        ]),
      }),
      on('workflow-run', `${event('workflow_run', ['completed'])} and workflow_run.conclusion = "failure"`, {
        name: `GitHub ${repo} {{ workflow_run.name ? workflow_run.name : workflow_run.path }}`,
        sessionKey: `hook:github:${repo}:workflow:{{workflow_run.workflow_id}}:{{workflow_run.head_branch}}`,
        messageTemplate: messageLines([
          `Workflow "{{ workflow_run.name ? workflow_run.name : workflow_run.path }}" failed on {{workflow_run.head_branch}} in ${repo} (run #{{workflow_run.run_number}}, triggered by {{workflow_run.event}} from {{workflow_run.actor.login}})`,
          '{{workflow_run.html_url}}',
          'Commit: {{ $substringBefore(workflow_run.head_commit.message, "\\n") }}',
        ]),
      }),
      on('push', event('push'), {
        action: 'wake',
        wakeMode: 'next-heartbeat',
        textTemplate: `GitHub push to ${repo} ({{ $replace(ref, /^refs\\/(heads|tags)\\//, "") }}) by {{pusher.name}}: {{ deleted ? "deleted" : $count(commits) & " commit(s), latest \\"" & $substringBefore(head_commit.message, "\\n") & "\\" " & compare }}`,
      }),
      // a listed event with an action no mapping above takes (labeled, edited, synchronize, ...)
      on('other', 'true', { action: 'skip' }),
    ];
  },
});
