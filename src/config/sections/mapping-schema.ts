import { z } from 'zod';
import { positiveDuration } from './duration-schema.js';
import { fallbackSchema, retryPolicySchema } from './delivery-policy-schema.js';
import { mappingTrafficFields } from './traffic-schema.js';
import { mappingToolsSchema } from './tools-schema.js';
import { mappingToolCallFields } from './tool-action-schema.js';

/** OpenClaw's `sessionMode` of an agent run */
export const sessionModes = ['isolated', 'persistent'] as const;
export const thinkingLevels = ['off', 'minimal', 'low', 'medium', 'high'] as const;
export const wakeModes = ['now', 'next-heartbeat'] as const;
/** the longest run a timer can wait for: Node's setTimeout fires at once past 2^31-1 ms */
export const MAX_TIMEOUT_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

export const signatureTypes = [
  'github',
  'stripe',
  'standard-webhooks',
  'hmac-sha256',
  'hmac-sha1',
  'twilio',
  'slack',
  'gitlab',
  'linear',
  'sentry',
  'pagerduty',
  'shopify',
  'jira',
  'bearer',
  'ed25519',
  'hubspot',
  'calendly',
  'zoom',
  'shared-secret',
  'basic',
  'msgraph',
  'sendgrid',
  'mailgun',
  'netlify',
  'notion',
  'paypal',
] as const;

const headerName = z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'an HTTP header name');

/** How a sender that cannot send the hook token proves itself: a signature over the raw body. */
export const mappingAuthSchema = z
  .object({
    type: z
      .enum(signatureTypes)
      .describe(
        'Signature scheme: what each type checks (its header, the signed content, which field holds the secret) is in the table of docs/mappings.md, "Signature verification".',
      ),
    secret: z
      .string()
      .min(1)
      .optional()
      .describe('The signing secret shared with the sender (${ENV} allowed, also in mapping files); standard-webhooks takes the whsec_<base64> form; basic: the password. Required by every type but ed25519 (publicKey), paypal (webhookId) and twilio with a sharedKey.'),
    header: headerName
      .optional()
      .describe('hmac-sha256, hmac-sha1 and shared-secret: the header carrying the digest (a sha256= or sha1= prefix is allowed) or the secret.'),
    encoding: z.enum(['hex', 'base64']).optional().describe('hmac-sha256 and hmac-sha1: how the digest is written in `header` (default hex; Zendesk and Typeform write base64).'),
    timestampHeader: headerName
      .optional()
      .describe("hmac-sha256 and hmac-sha1: the header whose value is signed before the body (Zendesk's X-Zendesk-Webhook-Signature-Timestamp): unix seconds, unix milliseconds or ISO 8601, within toleranceSeconds of now."),
    toleranceSeconds: z
      .number()
      .int()
      .positive()
      .optional()
      .describe(
        'Schemes that sign a timestamp (stripe, standard-webhooks, slack, linear, ed25519, hubspot, calendly, zoom, and hmac-* with timestampHeader): largest accepted distance between the signed timestamp and now, in seconds, in either direction (default 300; linear 60 and calendly 180, as those senders advise).',
      ),
    url: z
      .string()
      .url()
      .optional()
      .describe('twilio and hubspot: the URL exactly as configured at the sender (scheme, host, path, query), when a proxy changes the URL herald sees; default: the URL of the request.'),
    publicKey: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, 'a hex Ed25519 public key (64 hex digits)')
      .optional()
      .describe("ed25519 only: the sender's public key, hex (Discord: the application's Public Key)."),
    sharedKey: z
      .string()
      .min(1)
      .optional()
      .describe("twilio only: the secret of the SharedKey a Twilio Webhook Setting signs with (${ENV} allowed); a request carrying X-Twilio-Webhooks-Signature-Settings is verified with it and the header's algorithm (HMAC_SHA1 or HMAC_SHA256)."),
    username: z.string().min(1).optional().describe('basic only: the user name the sender sends (compared in constant time, like the password in secret).'),
    webhookId: z
      .string()
      .regex(/^[A-Za-z0-9]{1,50}$/, "a PayPal Webhook ID (letters and digits)")
      .optional()
      .describe("paypal only: the listener's Webhook ID in PayPal's developer dashboard (${ENV} allowed); PayPal signs it with each delivery."),
    certUrls: z
      .array(z.string().url())
      .min(1)
      .optional()
      .describe("paypal only, for a fake PayPal in tests only: URL prefixes PAYPAL-CERT-URL must start with (scheme, host, port, path). Default: an https URL under /v1/notifications/certs/ on api.paypal.com, api.sandbox.paypal.com, api-m.paypal.com or api-m.sandbox.paypal.com; a URL not allowed is refused before anything is fetched."),
    certRoots: z
      .string()
      .includes('-----BEGIN CERTIFICATE-----', { message: 'PEM certificates (-----BEGIN CERTIFICATE-----)' })
      .optional()
      .describe("paypal only, for a fake PayPal in tests only: PEM certificates PayPal's signing certificate must chain to, instead of Node's root store (tls.rootCertificates) (${ENV} allowed)."),
  })
  .strict();

export type MappingAuth = z.output<typeof mappingAuthSchema>;

const httpStatus = z.number().int().min(200).max(599);

/**
 * The mapping answers the request itself instead of the generic 200/202: a handshake (`when`,
 * no run), or the run's reply awaited up to `waitMs` (TwiML for Twilio, a Slack ephemeral reply).
 */
export const mappingRespondSchema = z
  .object({
    when: z
      .string()
      .optional()
      .describe('A handshake: when this JSONata predicate holds ($payload, $headers, $query bound), the request is answered with status/body and starts no run, before the schema is checked; otherwise the mapping goes on as usual. E.g. type = "url_verification" for Slack.'),
    method: z
      .enum(['POST', 'GET'])
      .default('POST')
      .describe('GET: this handshake answers GET requests to match.path (Meta\'s hub.challenge, carried in the query); other paths still answer GET with 405.'),
    verifyToken: z
      .object({
        query: z.string().min(1).describe('The query parameter carrying the token, e.g. hub.verify_token.'),
        token: z.string().min(1).describe('The token configured at the sender (${ENV} allowed); compared in constant time, a mismatch is 401.'),
      })
      .strict()
      .optional()
      .describe('A GET handshake authenticated by a token in the query instead of the hook token (Meta).'),
    secret: z
      .string()
      .min(1)
      .optional()
      .describe('Bound as $secret in the body template, with $hmacSha256(key, text) (hex): Zoom\'s endpoint.url_validation answer.'),
    status: httpStatus.default(200).describe('The status of the answer.'),
    body: z
      .string()
      .default('')
      .describe('The answer (templated; each {{ }} is escaped for contentType: XML, JSON). With waitMs, {{ reply }} is the run\'s reply.'),
    contentType: z.string().min(1).default('text/plain; charset=utf-8').describe('Content-Type of the answer.'),
    headers: z.record(headerName, z.string()).optional().describe('Extra headers of the answer.'),
    waitMs: z
      .number()
      .int()
      .positive()
      .max(30000)
      .optional()
      .describe("Wait up to this long for the run's reply and answer with body; past it, answer fallback and the reply is delivered through the mapping's channel as usual. The run is recorded as any other."),
    fallback: z
      .object({
        status: httpStatus.default(200).describe('Status past waitMs.'),
        body: z.string().default('').describe('Body past waitMs (templated over the request).'),
        contentType: z.string().min(1).optional().describe('Content-Type past waitMs (default: respond.contentType).'),
      })
      .strict()
      .optional()
      .describe('The answer when the reply is not there within waitMs (default: 202 with the runId, as without respond).'),
  })
  .strict();

export type MappingRespond = z.output<typeof mappingRespondSchema>;

/** One declarative hook mapping: how a request to `hooks.path/<name>` becomes a wake or agent action. */
export const mappingSchema = z
  .object({
    id: z.string().min(1).optional().describe('Stable id, used in logs and errors; defaults to mapping-<n>.'),
    match: z
      .object({
        path: z.string().optional().describe('The part of the URL after hooks.path (may contain /, slashes trimmed, exact match).'),
        source: z.string().optional().describe('Matches when payload.source equals this value.'),
        when: z.string().optional().describe('A JSONata predicate over the payload ($payload, $headers, $query, $path, $now bound); the mapping matches when it is truthy.'),
      })
      .strict()
      .optional()
      .describe('When this mapping applies; all given conditions must hold.'),
    action: z
      .enum(['agent', 'wake', 'tool', 'skip'])
      .default('agent')
      .describe('What the request turns into: an agent run, a wake event, a direct call of one tool without a model (tool: see tool, arguments, then), or nothing (skip: answered 204, e.g. a sender\'s ping or an event no agent should see).'),
    schema: z.record(z.string(), z.unknown()).optional().describe('A JSON Schema the payload must satisfy (400 with the errors otherwise).'),
    textTemplate: z.string().optional().describe('Wake text; {{ expr }} templates over the payload.'),
    messageTemplate: z.string().optional().describe('Agent message; {{ expr }} templates over the payload.'),
    name: z.string().optional().describe('Hook name, the prefix of the summary posted to the main session (templated).'),
    forEach: z
      .string()
      .regex(/^[A-Za-z_$][A-Za-z0-9_$-]*$/, 'a top-level payload key (no dots, no brackets)')
      .refine((key) => !['__proto__', 'prototype', 'constructor'].includes(key), 'not a prototype key')
      .optional()
      .describe("Fan out over the array at this top-level payload key (e.g. gmail's messages): one action per item, whose templates and transform see the payload with that array replaced by [item]; missing or empty: 204. At most hooks.maxForEachItems items (the rest dropped with a warning); the answer lists every runId."),
    agentId: z.string().min(1).optional().describe('The digital employee that runs it (its model, instructions, knowledge); an unknown id falls back to the default agent, as in OpenClaw. Must pass hooks.allowedAgentIds.'),
    sessionKey: z.string().optional().describe('Session key of the agent run (templated); reusing one continues its conversation. Must match hooks.allowedSessionKeyPrefixes.'),
    wakeMode: z.enum(wakeModes).optional().describe('now triggers a heartbeat at once; next-heartbeat waits.'),
    deliver: z.boolean().optional().describe('Deliver the reply to a chat channel (default true).'),
    sessionMode: z
      .enum(sessionModes)
      .optional()
      .describe('OpenClaw\'s session rule: persistent continues the conversation of sessionKey (required, allowed by the session-key policy); isolated runs in a fresh session (no sessionKey). Unset: a sessionKey continues its conversation, none gives a fresh one.'),
    channel: z.string().optional().describe('Delivery channel: last or a channel plugin id/alias.'),
    to: z.string().optional().describe('Recipient on the channel (templated).'),
    failureReply: z
      .string()
      .trim()
      .min(1)
      .max(2000)
      .optional()
      .describe("A fixed line (not templated) delivered to the reply's channel and recipient when a run ends without a reply (failed, timed out, or an empty answer), e.g. to end a Discord interaction's \"is thinking…\". Never carries the cause."),
    retry: retryPolicySchema.optional().describe("Retry schedule of this mapping's replies, over its agent's and its channel's. On action \"tool\": also the call's retries, only for a read-only or idempotent tool or a call that failed before reaching its server."),
    fallback: fallbackSchema.optional().describe(`${fallbackSchema.description} For this mapping's replies (over its agent's).`),
    threadId: z
      .string()
      .optional()
      .describe('Reply in this platform thread or to this message (templated), e.g. {{ event.thread_ts ? event.thread_ts : event.ts }} for Slack; each channel maps it to its own field, channels without threads ignore it (see Channels).'),
    model: z.string().optional().describe('Model override, <provider>/<model> or an alias (templated); must be in agents.defaults.models when set.'),
    thinking: z.string().optional().describe('Thinking level override: off, minimal, low, medium, high (templated).'),
    timeoutSeconds: z.number().positive().max(MAX_TIMEOUT_SECONDS).optional().describe(`Maximum duration of the agent run, in seconds (at most ${MAX_TIMEOUT_SECONDS}, about 24 days).`),
    transform: z
      .object({
        module: z.string().min(1).describe('Module path inside hooks.transformsDir (.js, .mjs, .cjs, .ts).'),
        export: z.string().min(1).optional().describe('Export to call; default, else transform.'),
      })
      .strict()
      .optional()
      .describe('A code transform whose result is merged over the templated action.'),
    allowUnsafeExternalContent: z
      .boolean()
      .optional()
      .describe('Turns off the external-content safety wrapper for this hook (dangerous; trusted sources only).'),
    idempotencyKey: z
      .string()
      .optional()
      .describe(
        "The sender's delivery id as an Idempotency-Key (templated), e.g. {{ headers.x-github-delivery }} or Stripe's {{ id }}: a repeat with the same rendered key on the same path is answered with the stored response instead of being processed again. Empty: no key. A request's Idempotency-Key header wins.",
      ),
    retainPayloads: z
      .union([
        z.boolean(),
        z
          .object({
            sample: z.number().min(0).max(1).describe('The share of successful requests kept (0 to 1: 0.1 keeps about one in ten, drawn at random per request). A failed one is kept as hooks.retainFailedPayloads says.'),
            days: z.number().positive().max(365).optional().describe('How long each kept payload is kept, in days (default hooks.retention.payloadTtlHours); pruned by age like every retained payload.'),
          })
          .strict(),
      ])
      .optional()
      .describe("Retain this mapping's requests (raw body, non-secret headers) for replay, backtests and herald eval. true: every request, for hooks.retention.payloadTtlHours; false: none, failed ones neither; { sample, days }: a sample of the successful ones (and the failed ones, as hooks.retainFailedPayloads says), each kept days. Overrides hooks.retainPayloads and hooks.retainFailedPayloads."),
    retainMasked: z
      .array(z.string().min(1).max(64))
      .max(16)
      .optional()
      .describe(
        "Top-level fields of a JSON body that hold a credential (the discord preset's `token`, an interaction's token): a retained payload keeps `…` in their place (and in place of their value anywhere else in the body), so the admin API, the console and a replay never read it.",
      ),
    expectEvery: positiveDuration
      .optional()
      .describe('The sender is expected at least this often (e.g. 6h): a longer silence raises a source.silent alert (see alerts), resolved by its next request.'),
    respond: mappingRespondSchema
      .optional()
      .describe('Answer the request itself: a handshake (when), or the run\'s reply awaited up to waitMs. See docs/mappings.md.'),
    tools: mappingToolsSchema
      .optional()
      .describe("Narrows its agent's tools for this mapping's runs (allow, deny), never widens them; `grant` lets named tools that write run without a person's approval, for signed requests only (needs auth)."),
    auth: mappingAuthSchema
      .optional()
      .describe('Signature verification for senders that cannot send the hook token (GitHub, Stripe, ...): a request to match.path is accepted with a valid hook token or a valid signature. Needs match.path.'),
    ...mappingToolCallFields,
    ...mappingTrafficFields,
  })
  .strict();

export type MappingConfig = z.input<typeof mappingSchema>;
export type Mapping = z.output<typeof mappingSchema>;
