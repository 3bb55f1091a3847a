import type { GoogleApiError } from '../google/google-api.js';

export type SetupStepId = 'token' | 'topic' | 'publisher' | 'subscription' | 'watch';

/** What to fix when a setup step fails, by step and HTTP status. */
export function setupHint(step: SetupStepId, error: GoogleApiError, project: string): string {
  const { status, reason } = error;
  if (status === 0) return 'Google could not be reached: check the network, a proxy, or hooks.gmail.endpoints.';
  if (step === 'token') {
    if (reason === 'invalid_client' || status === 401) return 'The OAuth client id or secret is wrong: check --client-id/--client-secret (or hooks.gmail.oauth).';
    return 'The refresh token was refused (expired, revoked, or issued to another client): get a new one (docs/gmail.md, Getting a refresh token).';
  }
  // Google answers a missing scope with 403 PERMISSION_DENIED "Request had insufficient authentication scopes."
  if (status === 403 && /insufficient authentication scopes|SCOPE_INSUFFICIENT/i.test(error.message)) {
    return step === 'watch'
      ? 'The refresh token lacks the Gmail scope: get one with https://www.googleapis.com/auth/gmail.readonly (and .../auth/pubsub).'
      : 'The refresh token lacks the Pub/Sub scope: get one with https://www.googleapis.com/auth/pubsub (and .../auth/gmail.readonly).';
  }
  if (status === 401) return 'Google refused the access token (invalid credentials): get a new refresh token (docs/gmail.md, Getting a refresh token).';
  if (status === 404) return `Project "${project}" or the resource was not found: check --project (the project id, not its name).`;
  if (step === 'watch') {
    if (status === 403 && /sending test message to Cloud PubSub/i.test(error.message)) {
      return 'gmail-api-push@system.gserviceaccount.com may not publish to the topic yet: a role just granted can take a few minutes to apply; run setup again shortly (it is safe to repeat).';
    }
    if (status === 403) return `Enable the Gmail API in project ${project} (console.cloud.google.com/apis/library/gmail.googleapis.com), and check that gmail-api-push may publish to the topic.`;
    if (status === 400) return 'Gmail refused the watch: check --label (e.g. INBOX, or a label id) and that the topic exists in the same project.';
  }
  if (step === 'subscription') {
    if (status === 400) return 'Pub/Sub refused the push endpoint: --push-endpoint must be a public https:// URL.';
    if (status === 409) return 'Choose another --subscription, or delete the existing subscription in the Cloud console.';
  }
  if (status === 403) {
    return `Enable the Cloud Pub/Sub API in project ${project} (console.cloud.google.com/apis/library/pubsub.googleapis.com) and give the account that granted the refresh token the Pub/Sub Admin role.`;
  }
  if (status === 429 || status >= 500) return 'Google is busy or failing: run setup again in a minute (it is safe to repeat).';
  return 'See the message above; running setup again is safe once it is fixed.';
}
