import { callPlatform, joinUrl, pathSegment, type Verdict } from '../../src/plugin-sdk/channel-http.js';
import { ChannelError, type ChannelAdapter } from '../../src/plugin-sdk/sdk.js';
import { sendInParts } from '../../src/plugin-sdk/split-message.js';
import type { MsteamsConfig } from './config.js';

/**
 * Teams limits a bot message to about 100 KB of its payload encoded as UTF-16 and advises
 * staying within 80 KB; past it the Bot Connector answers 413 `MessageSizeTooBig`
 * (https://learn.microsoft.com/microsoftteams/platform/bots/how-to/format-your-bot-messages).
 * 28000 UTF-16 units are 56 KB, leaving room for the activity's other fields.
 */
export const MSTEAMS_MAX_CHARS = 28000;
/** renew a minute early so a token never expires mid-request */
const EXPIRY_MARGIN_MS = 60_000;

interface CachedToken {
  value: string;
  expiresAt: number;
}

/**
 * `threadId` on Teams: the activity id of the thread's first message. The Bot Connector's "reply to
 * activity" (`POST /v3/conversations/{id}/activities/{activityId}`, `replyToId`) posts into it; in a
 * channel the thread is also its own conversation, `<channel conversation id>;messageid=<activityId>`
 * (https://learn.microsoft.com/azure/bot-service/rest-api/bot-framework-rest-connector-send-and-receive-messages#reply-to-a-message,
 * https://learn.microsoft.com/microsoftteams/platform/bots/how-to/conversations/send-proactive-messages).
 */
export function teamsTarget(to: string, threadId: string | undefined): { conversation: string; path: string; extra: Record<string, unknown> } {
  if (!threadId) return { conversation: to, path: '', extra: {} };
  const conversation = to.includes('@thread.') && !to.includes(';messageid=') ? `${to};messageid=${threadId}` : to;
  return { conversation, path: `/${pathSegment(threadId)}`, extra: { replyToId: threadId } };
}

/**
 * The Bot Connector's documented answers (https://learn.microsoft.com/microsoftteams/platform/bots/build-conversational-capability#status-codes-from-bot-conversational-apis):
 * 400 BadArgument, 401 (a bad token, fetched again once), 403 BotNotInConversationRoster,
 * BotDisabledByAdmin, ConversationBlockedByUser (the user blocked the bot), 404
 * ConversationNotFound, 413 MessageSizeTooBig are permanent; 412 PreconditionFailed, 429 Throttled
 * (Retry-After), 500, 502, 503 and 504 are retried. The ErrorResponse's `error.code` is the reason.
 */
function classifyTeams(status: number): Verdict | undefined {
  return status === 412 ? { retryable: true } : undefined;
}

/**
 * Client-credentials token (cached until shortly before it expires), then
 * `POST {serviceUrl}/v3/conversations/{to}/activities`, Bearer, `{type:"message", text}`.
 */
export function msteamsChannel(config: MsteamsConfig): ChannelAdapter {
  let cached: CachedToken | undefined;
  let pending: Promise<CachedToken> | undefined;

  // the token request is a request of its own, with its own time limit
  async function fetchToken(signal: AbortSignal, timeoutMs?: number): Promise<CachedToken> {
    const { body } = await callPlatform({
      platform: 'msteams token',
      url: config.tokenUrl,
      form: { grant_type: 'client_credentials', client_id: config.appId, client_secret: config.appPassword, scope: config.scope },
      signal,
      timeoutMs,
      secrets: [config.appPassword],
      errorText: (b) => b?.error_description ?? b?.error,
    });
    if (typeof body?.access_token !== 'string') throw new ChannelError('msteams token: no access_token in the answer', false);
    const lifetimeMs = (Number(body.expires_in) || 3600) * 1000;
    return { value: body.access_token, expiresAt: Date.now() + lifetimeMs - EXPIRY_MARGIN_MS };
  }

  async function token(signal: AbortSignal, timeoutMs?: number): Promise<string> {
    if (cached && cached.expiresAt > Date.now()) return cached.value;
    // concurrent sends share one token request
    pending ??= fetchToken(signal, timeoutMs).finally(() => (pending = undefined));
    cached = await pending;
    return cached.value;
  }

  return {
    send: (message) =>
      sendInParts(message, MSTEAMS_MAX_CHARS, async ({ text }) => {
        const { conversation, path, extra } = teamsTarget(message.to, message.threadId);
        const post = async () =>
          callPlatform({
            platform: 'msteams',
            url: joinUrl(config.serviceUrl, `/v3/conversations/${pathSegment(conversation)}/activities${path}`),
            headers: { authorization: `Bearer ${await token(message.signal, message.requestTimeoutMs)}` },
            json: { type: 'message', text, ...extra },
            signal: message.signal,
            timeoutMs: message.requestTimeoutMs,
            secrets: [config.appPassword, ...(cached ? [cached.value] : [])],
            errorText: (b) => b?.error?.message ?? b?.message,
            reason: (b) => (typeof b?.error?.code === 'string' ? b.error.code : undefined),
            classify: classifyTeams,
          });
        let response;
        try {
          response = await post();
        } catch (error) {
          // a revoked or expired cached token: fetch a fresh one and try once more
          if (!(error instanceof ChannelError && error.status === 401)) throw error;
          cached = undefined;
          response = await post();
        }
        return typeof response.body?.id === 'string' ? response.body.id : undefined;
      }),
  };
}
