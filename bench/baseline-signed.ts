/**
 * The baseline's signed webhook (bench/baseline-server.ts, `/hooks/github`): what a hand-written
 * GitHub receiver does for the github preset's `issues.opened`, with the same libraries herald
 * uses. Per request: the signature checked over the raw body as GitHub documents
 * (https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries: the hex
 * HMAC-SHA256 of the body with the secret, after `sha256=`, compared in constant time), then,
 * after the JSON parse, the delivery routed by X-GitHub-Event and `action` as the preset's
 * predicates route it (in code: a raw server has no predicates to evaluate), and the preset's own
 * JSONata templates rendered (compiled once, bench/baseline-mapped.ts). Self-contained: the
 * templates come from the bench in BASELINE_GITHUB, no herald imports.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { compileTemplate, type MappedRequest } from './baseline-mapped.js';

/** BASELINE_GITHUB: the secret, the preset's mapping ids (a receipt names them) and its issue mapping's templates */
export interface GithubBaselineConfig {
  secret: string;
  /** the path's mappings, as herald's receipt of a signed request lists them */
  mappingIds: string[];
  /** the events the preset listens to (its default list) */
  events: string[];
  issue: { id: string; name: string; sessionKey: string; messageTemplate: string };
}

export interface RenderedIssue {
  mappingId: string;
  name: string;
  sessionKey: string;
  message: string;
  /** X-GitHub-Delivery: the same on a redelivery */
  idempotencyKey: string;
}

const HEX_DIGEST = /^[0-9a-f]{64}$/i;
const ISSUE_ACTIONS = ['opened', 'reopened', 'closed'];

export function githubReceiver(config: GithubBaselineConfig) {
  const name = compileTemplate(config.issue.name);
  const sessionKey = compileTemplate(config.issue.sessionKey);
  const message = compileTemplate(config.issue.messageTemplate);
  const signature = config.mappingIds.join(',');
  return {
    /** the receipt's `signature`: the mappings that may take the request */
    signature,
    verified(header: string | string[] | undefined, body: Buffer): boolean {
      const text = typeof header === 'string' ? header.trim() : '';
      const hex = text.slice(0, 7).toLowerCase() === 'sha256=' ? text.slice(7) : text;
      if (!HEX_DIGEST.test(hex)) return false;
      const given = Buffer.from(hex, 'hex');
      const expected = createHmac('sha256', config.secret).update(body).digest();
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
    /** the issue's run, or undefined: a delivery the preset answers 204 (ping, a bot's, an event or action not listed) */
    async route(request: MappedRequest): Promise<RenderedIssue | undefined> {
      const event = request.headers['x-github-event'];
      const payload = request.payload as { action?: unknown; sender?: { type?: unknown } };
      if (typeof event !== 'string' || event === 'ping' || payload.sender?.type === 'Bot' || !config.events.includes(event)) return undefined;
      if (event !== 'issues' || !ISSUE_ACTIONS.includes(payload.action as string)) return undefined;
      const delivery = request.headers['x-github-delivery'];
      return {
        mappingId: config.issue.id,
        name: await name(request),
        sessionKey: await sessionKey(request),
        message: await message(request),
        idempotencyKey: typeof delivery === 'string' ? delivery : '',
      };
    },
  };
}

/** what herald's idempotency record calls "the same request": the path and the body's bytes (src/runtime/hook-idempotency.ts) */
export const requestHash = (path: string, body: Buffer): string => createHash('sha256').update(path).update('\n').update(body).digest('hex');
