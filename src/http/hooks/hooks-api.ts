import { createRoute } from '@hono/zod-openapi';
import { z } from 'zod';
import { wakeModes } from '../../config/sections/mapping-schema.js';
import { hookFields } from '../../mappings/hook-fields.js';
import { jsonAnswer, okFalseSchema } from '../openapi/common-schemas.js';
import { hookTokenSecurity } from '../openapi/documented-route.js';

/** The body of `POST /hooks/wake`: the fields `mappings/hook-action.ts` checks, by their own schemas. */
export const wakeBodySchema = z
  .object({
    text: hookFields.text.describe('The event description (non-blank).'),
    mode: hookFields.mode.default('now').describe('`now` triggers a heartbeat immediately; `next-heartbeat` waits for the periodic one.'),
  })
  .loose();

/** The body of `POST /hooks/agent`: the fields hook-action checks, by their own schemas; `waitForCompletion` is read by runtime/hook-intake.ts. */
export const agentBodySchema = z
  .object({
    message: hookFields.message.describe('What the agent processes (non-blank).'),
    name: hookFields.name.default('Hook').describe('Prefix of the summary posted to the main session.'),
    sessionKey: hookFields.sessionKey.optional().describe('Session of the run (default hook:<run id>, keyed by the run); `main` and `chat:…` are reserved.'),
    sessionMode: hookFields.sessionMode.optional().describe('persistent: continue the conversation of sessionKey (required); isolated: a fresh session (no sessionKey).'),
    wakeMode: hookFields.wakeMode.default('now').describe('Heartbeat after the summary is posted: now or at the next periodic one.'),
    deliver: hookFields.deliver.default(true).describe('Send the reply to a chat channel.'),
    channel: hookFields.channel.default('last').describe('`last` or a channel id/alias (whatsapp, telegram, discord, slack, mattermost, signal, imessage, msteams, webhook).'),
    to: hookFields.to.optional().describe('Recipient on the channel (default: the last recipient).'),
    threadId: hookFields.threadId.optional().describe('Reply in this thread or to this message: Slack thread_ts, Telegram topic id (or reply:<message_id>), Discord message id, Mattermost root post id, Teams activity id, WhatsApp message id, iMessage message guid; channels without threads ignore it.'),
    model: hookFields.model.optional().describe('Model override: <provider>/<model> or an alias; must be in agents.defaults.models when that list is set.'),
    thinking: hookFields.thinking.optional().describe('Thinking level override.'),
    timeoutSeconds: hookFields.timeoutSeconds.optional().describe('Time limit of the run, in seconds.'),
    waitForCompletion: z
      .boolean()
      .default(false)
      .describe('Answer only once the run finished (bounded by its time limit) and its reply\'s first delivery attempt ended, with `completion`. An Idempotency-Key retry may change only this field.'),
  })
  .loose();

export const wakeAcceptedSchema = z.object({
  ok: z.literal(true),
  mode: z.enum(wakeModes),
  eventOutcome: z.enum(['queued', 'coalesced']).describe('coalesced: the event repeated the pending one before it and joined it (as OpenClaw answers)'),
});
/** OpenClaw's `completion` (src/runtime/runs/run-completion-report.ts) */
export const runCompletionSchema = z.object({
  status: z.enum(['ok', 'error', 'skipped']).describe('ok: the run succeeded; error: it failed, timed out or did not finish in time; skipped: it was cancelled.'),
  replyDisposition: z.enum(['visible', 'silent', 'empty']).describe('visible: a reply to send; silent: only NO_REPLY or HEARTBEAT_OK (never sent); empty: no text.'),
  delivered: z.boolean().describe('The channel accepted the reply.'),
  deliveryAttempted: z.boolean().describe('A delivery was tried.'),
  deliveryError: z.literal('delivery-failed').optional().describe('The delivery was tried and failed (the outbox may still retry it).'),
  deliverySuppressionReason: z.enum(['silent', 'heartbeat', 'empty']).optional().describe('Why a reply to deliver was not sent.'),
  reply: z.string().optional().describe('The reply text: only with hooks.completionIncludesReply.'),
});
export const runAcceptedSchema = z.object({
  ok: z.literal(true),
  runId: z.string().describe('See GET /admin/runs/{id}.'),
  coalesced: z.literal(true).optional().describe("The event joined the open run of its mapping's coalescing key (`coalesce`): runId is that run's, which lists this event in its message."),
  completion: runCompletionSchema.optional().describe('With `waitForCompletion: true` only.'),
});

/** the answers every hook shares (auth, body limits, idempotency) */
export const hookErrorAnswers = {
  400: jsonAnswer(okFalseSchema, 'Unreadable JSON, or a missing or mistyped field (named).'),
  401: jsonAnswer(okFalseSchema, 'Missing or wrong hook token.'),
  405: jsonAnswer(okFalseSchema, 'Not POST (`Allow: POST`).'),
  408: jsonAnswer(okFalseSchema, 'The body stopped arriving for hooks.bodyTimeoutMs.'),
  409: jsonAnswer(okFalseSchema, 'The same Idempotency-Key is still being processed (`Retry-After: 1`).'),
  413: jsonAnswer(okFalseSchema, 'Body over hooks.maxBodyBytes.'),
  422: jsonAnswer(okFalseSchema, 'The Idempotency-Key was used for a different request.'),
  429: jsonAnswer(okFalseSchema, 'Too many failed authentications from this address, or the mapping\'s `rate` (overflow: reject) is used up: `{ok:false,error:"rate limited"}`. `Retry-After`: the seconds until it allows a run.'),
};

/** POST /hooks/wake and /hooks/agent as declared for the document: the hook surface is one wildcard route (answer-hook.ts), so only these declarations are read */
export const hooksApi = {
  wake: createRoute({
    method: 'post', path: '/wake', summary: 'Add a system event to the main session', security: hookTokenSecurity,
    request: { body: { content: { 'application/json': { schema: wakeBodySchema } } } },
    responses: { 200: jsonAnswer(wakeAcceptedSchema, 'Event queued.'), ...hookErrorAnswers },
  }),
  agent: createRoute({
    method: 'post', path: '/agent', summary: 'Run an isolated agent turn', security: hookTokenSecurity,
    request: { body: { content: { 'application/json': { schema: agentBodySchema } } } },
    responses: { 202: jsonAnswer(runAcceptedSchema, 'Run accepted (stored as queued).'), ...hookErrorAnswers },
  }),
};
