/**
 * Example transform (TypeScript, loaded as is: no build step). Turns GitHub `pull_request`
 * events into agent runs for the actions worth a look, and skips the rest (204).
 *
 * Contract: called with `{ payload, headers, query, path, url, mapping }`; return `null` to
 * skip, `undefined` to keep the templated action, or fields merged over it (`kind` may switch
 * between "agent" and "wake").
 */
interface PullRequestEvent {
  action: string;
  number: number;
  pull_request: {
    title: string;
    html_url: string;
    body: string | null;
    merged?: boolean;
    draft?: boolean;
    user: { login: string };
    additions?: number;
    deletions?: number;
    changed_files?: number;
  };
  repository: { full_name: string };
}

interface TransformContext {
  payload: unknown;
  headers: Record<string, string>;
  mapping: { id: string };
}

const REVIEW_ACTIONS = new Set(['opened', 'reopened', 'ready_for_review']);

export default function githubPullRequest(ctx: TransformContext): Record<string, unknown> | null {
  const event = ctx.payload as PullRequestEvent;
  const pr = event.pull_request;
  const repo = event.repository.full_name;
  const sessionKey = `hook:github:${repo}:pr:${event.number}`;

  if (event.action === 'closed') {
    // a closed PR is news, not work: a wake event for the next heartbeat
    return {
      kind: 'wake',
      text: `PR #${event.number} in ${repo} was ${pr.merged ? 'merged' : 'closed without merging'}: ${pr.title}`,
      mode: 'next-heartbeat',
    };
  }
  if (!REVIEW_ACTIONS.has(event.action) || pr.draft) return null;

  const size = pr.changed_files === undefined ? '' : ` (${pr.changed_files} files, +${pr.additions ?? 0}/-${pr.deletions ?? 0})`;
  return {
    name: `GitHub PR ${repo}#${event.number}`,
    sessionKey,
    message: [
      `Pull request #${event.number} ${event.action.replace(/_/g, ' ')} in ${repo} by ${pr.user.login}${size}:`,
      pr.title,
      pr.html_url,
      '',
      pr.body?.trim() || '(no description)',
      '',
      'Summarise what it changes and what a reviewer should look at first.',
    ].join('\n'),
  };
}
