import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { GITHUB_DEFAULT_EVENTS, githubPreset } from '../plugins/github/preset.js';
import type { GithubBaselineConfig } from './baseline-signed.js';

/**
 * The signed webhook the benchmark sends: GitHub's `issues.opened` from the github preset's
 * fixtures (plugins/github/fixtures/github.json), signed as GitHub signs a delivery
 * (https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries):
 * `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body with the webhook's secret>`,
 * computed per request by the load generator (bench/load-worker.ts), as each body differs.
 * Herald receives it through the `github` preset; the baseline does the same work by hand
 * (bench/baseline-signed.ts). No token is sent: the signature admits the request.
 */
export const GITHUB_SECRET = 'bench-github-secret-0123456789abcdef';
export const SIGNED_PATH = '/hooks/github';

interface FixtureCase {
  name: string;
  headers: Record<string, string>;
  payload: Record<string, unknown>;
}

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../plugins/github/fixtures/github.json');
const opened = (JSON.parse(fs.readFileSync(fixtures, 'utf8')) as FixtureCase[]).find((c) => c.name.startsWith('an opened issue'));
if (!opened) throw new Error(`${fixtures}: no "an opened issue" case`);

/**
 * The body; `{n}` is replaced per request: the issue's number (1 followed by n, a session of
 * its own per request, as mapped-agent's made-up session keys) and in the title
 */
export const SIGNED_BODY = JSON.stringify(opened.payload)
  .replace('"number":1,', '"number":1{n},')
  .replace('"title":"Spelling error', '"title":"{n}: Spelling error');
if (!SIGNED_BODY.includes('"number":1{n}')) throw new Error('the issues.opened fixture changed: no issue number to vary');

/**
 * GitHub's headers for one load run: the fixture's, with a delivery id of the run's own per
 * request (the preset's idempotency key: a repeated id would be answered from the first)
 */
export function signedHeaders(): Record<string, string> {
  const run = randomUUID().slice(0, 23);
  return { ...opened!.headers, 'X-GitHub-Delivery': `${run}-{n}` };
}

/** what the load generator signs each body with */
export const GITHUB_SIGNING = { header: 'X-Hub-Signature-256', prefix: 'sha256=', secret: GITHUB_SECRET } as const;

/** herald's `hooks.presets` entry */
export const GITHUB_PRESET = { name: 'github', secret: GITHUB_SECRET };

/**
 * The baseline's BASELINE_GITHUB: the same secret, and the preset's own issue templates and mapping
 * ids, taken from the preset as herald loads it (so a change to the preset changes both sides)
 */
export function githubBaselineConfig(): GithubBaselineConfig {
  const options = githubPreset.options.parse({ ...GITHUB_PRESET, path: githubPreset.path });
  const mappings = githubPreset.mappings({ ...options, path: githubPreset.path });
  const issue = mappings.find((m) => m.id === 'github-issue');
  if (!issue?.id || typeof issue.name !== 'string' || typeof issue.sessionKey !== 'string' || typeof issue.messageTemplate !== 'string') {
    throw new Error('the github preset changed: no github-issue mapping with name, sessionKey and messageTemplate templates');
  }
  return {
    secret: GITHUB_SECRET,
    mappingIds: mappings.map((m) => m.id ?? ''),
    events: GITHUB_DEFAULT_EVENTS,
    issue: { id: issue.id, name: issue.name, sessionKey: issue.sessionKey, messageTemplate: issue.messageTemplate },
  };
}
