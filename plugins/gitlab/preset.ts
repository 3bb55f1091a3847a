import { definePreset, notListed, presetCommonOptions, presetRoutes, messageLines } from '../../src/plugin-sdk/sdk.js';

/** the object kinds an agent sees unless `events` says otherwise */
export const GITLAB_DEFAULT_EVENTS = ['issue', 'merge_request', 'note', 'pipeline'];

/**
 * GitLab project or group webhooks (https://docs.gitlab.com/ee/user/project/integrations/webhook_events.html):
 * routed by `object_kind`, one session per issue, merge request or pipeline (a comment joins its
 * issue or merge request); kinds not in `events`, bot users' events and pipelines that did not
 * fail answered 204. X-Gitlab-Event-UUID is the same on a retry: it is the key.
 */
export const gitlabPreset = definePreset({
  path: 'gitlab',
  verifies: 'X-Gitlab-Token equal to `secret` (the webhook\'s Secret token)',
  summary: 'GitLab issues, merge requests, comments and failed pipelines become agent runs, one session per issue, MR or pipeline.',
  docs: 'https://docs.gitlab.com/ee/user/project/integrations/webhooks.html',
  options: presetCommonOptions,
  requires: ['secret'],
  mappings: (o) => {
    const events = o.events ?? GITLAB_DEFAULT_EVENTS;
    const on = presetRoutes({ prefix: 'gitlab', path: o.path, auth: { type: 'gitlab', secret: o.secret! }, idempotencyKey: '{{ headers.x-gitlab-event-uuid }}' });
    const project = '{{project.path_with_namespace}}';
    const attrs = 'object_attributes';
    // GitLab's verbs: open, reopen, close, merge (update, approved, ... are not routed)
    const done = `$lookup({"open": "opened", "reopen": "reopened", "close": "closed", "merge": "merged"}, ${attrs}.action)`;
    const by = '{{ user.username ? " by " & user.username : "" }}';
    const title = (field: string) => `{{ ${field} ? ": " & ${field} : "" }}`;
    return [
      // GitLab marks bot users (project and group access tokens, service accounts) with user.bot; see the user object in the payloads
      on('skip', `${notListed('object_kind', events)} or user.bot = true`, { action: 'skip' }),
      on('issue', `object_kind in ["issue", "work_item"] and ${attrs}.action in ["open", "reopen", "close"]`, {
        name: `GitLab ${project}#{{${attrs}.iid}}`,
        sessionKey: `hook:gitlab:${project}#{{${attrs}.iid}}`,
        messageTemplate: messageLines([
          `Issue #{{${attrs}.iid}} {{ ${done} }} in ${project}${by}${title(`${attrs}.title`)}`,
          `{{ ${attrs}.url ? ${attrs}.url : "" }}`,
          'Labels: {{ $count(labels) > 0 ? $join(labels.title, ", ") : "none" }}',
          '',
          `{{ ${attrs}.action = "close" ? "" : (${attrs}.description ? $substring(${attrs}.description, 0, 2000) : "(no description)") }}`,
        ]),
      }),
      on('merge-request', `object_kind = "merge_request" and ${attrs}.action in ["open", "reopen", "merge", "close"]`, {
        name: `GitLab ${project}!{{${attrs}.iid}}`,
        sessionKey: `hook:gitlab:${project}!{{${attrs}.iid}}`,
        messageTemplate: messageLines([
          `Merge request !{{${attrs}.iid}} {{ ${done} }} in ${project}${by}${title(`${attrs}.title`)}`,
          `{{ ${attrs}.url ? ${attrs}.url : "" }}`,
          `{{ ${attrs}.source_branch ? ${attrs}.source_branch & " -> " & ${attrs}.target_branch : "" }}{{ ${attrs}.draft ? " (draft)" : "" }}`,
          '',
          `{{ ${attrs}.action in ["merge", "close"] ? "" : (${attrs}.description ? $substring(${attrs}.description, 0, 2000) : "(no description)") }}`,
        ]),
      }),
      on('note', `object_kind = "note" and (issue or merge_request)`, {
        name: `GitLab ${project}{{ issue ? "#" & issue.iid : "!" & merge_request.iid }}`,
        sessionKey: `hook:gitlab:${project}{{ issue ? "#" & issue.iid : "!" & merge_request.iid }}`,
        messageTemplate: messageLines([
          `{{ user.username ? user.username : "Someone" }} commented on {{ issue ? "issue #" & issue.iid & (issue.title ? " (" & issue.title & ")" : "") : "merge request !" & merge_request.iid & (merge_request.title ? " (" & merge_request.title & ")" : "") }} in ${project}:`,
          `{{ ${attrs}.url ? ${attrs}.url : "" }}`,
          '',
          `{{ ${attrs}.note ? $substring(${attrs}.note, 0, 2000) : "(empty comment)" }}`,
        ]),
      }),
      on('pipeline', `object_kind = "pipeline" and ${attrs}.status = "failed"`, {
        name: `GitLab ${project} pipeline {{${attrs}.id}}`,
        sessionKey: `hook:gitlab:${project}:pipeline:{{${attrs}.id}}`,
        messageTemplate: messageLines([
          `Pipeline {{${attrs}.id}} failed{{ ${attrs}.ref ? " on " & ${attrs}.ref : "" }} in ${project}{{ ($t := $join([user.username ? "triggered by " & user.username, ${attrs}.source ? "source " & ${attrs}.source], ", "); $t ? " (" & $t & ")" : "") }}`,
          `{{ ${attrs}.url ? ${attrs}.url : project.web_url ? project.web_url & "/-/pipelines/" & ${attrs}.id : "" }}`,
          'Failed jobs: {{ $count(builds[status = "failed"]) > 0 ? $join(builds[status = "failed"].(stage & "/" & name), ", ") : "none listed" }}',
          'Commit: {{ commit.message ? $substringBefore(commit.message, "\\n") : "(not given)" }}',
        ]),
      }),
      on('other', 'true', { action: 'skip' }),
    ];
  },
});
