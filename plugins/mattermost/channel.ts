import { callPlatform, joinUrl } from '../../src/plugin-sdk/channel-http.js';
import { ChannelError, type ChannelAdapter } from '../../src/plugin-sdk/sdk.js';
import { sendInParts } from '../../src/plugin-sdk/split-message.js';
import type { MattermostConfig } from './config.js';

/**
 * What a server accepts when it does not say: servers before 5.0 (and posts stored in the old
 * `varchar(4000)` column) take 4000 runes, as Mattermost's own clients assume
 * (`MAX_MESSAGE_LENGTH_FALLBACK = 4000` in mattermost-mobile).
 */
export const MATTERMOST_LEGACY_MAX_RUNES = 4000;

/**
 * The server's limit on one post, in runes (it counts `utf8.RuneCountInString`): `MaxPostSize` of
 * the client config (`GET /api/v4/config/client?format=old`), 16383 on a current server.
 */
async function maxPostSize(config: MattermostConfig, signal: AbortSignal, timeoutMs?: number): Promise<number> {
  let body: any;
  try {
    ({ body } = await callPlatform({
    platform: 'mattermost',
    method: 'GET',
    url: joinUrl(config.url, '/api/v4/config/client?format=old'),
    headers: { authorization: `Bearer ${config.token}` },
    signal,
    timeoutMs,
    secrets: [config.token],
    errorText: (b) => b?.message,
    }));
  } catch (error) {
    // a server that will not tell (an old one, a proxy refusing the path): assume the legacy limit
    if (error instanceof ChannelError && !error.retryable) return MATTERMOST_LEGACY_MAX_RUNES;
    throw error;
  }
  const size = Number(body?.MaxPostSize);
  return Number.isInteger(size) && size > 0 ? size : MATTERMOST_LEGACY_MAX_RUNES;
}

/**
 * `POST {url}/api/v4/posts`, Bearer, `{channel_id, message}`, split at the server's own limit.
 * Errors are AppError `{id, message, status_code}` (https://api.mattermost.com/#tag/errors): 400
 * (`api.post.create_post.channel_not_found`...), 401 (`api.context.session_expired.app_error`), 403
 * (`api.context.permissions.app_error`: the bot is not in the channel) and 404 are permanent, the
 * AppError id their reason; 429 (with Retry-After) and 5xx are transient.
 */
export function mattermostChannel(config: MattermostConfig): ChannelAdapter {
  // asked once per process; a failed question is asked again by the next send
  let limit: number | undefined;
  return {
    send: async (message) => {
      limit ??= await maxPostSize(config, message.signal, message.requestTimeoutMs);
      return sendInParts(
        message,
        limit,
        async ({ text, key }) => {
          const { body } = await callPlatform({
            platform: 'mattermost',
            url: joinUrl(config.url, '/api/v4/posts'),
            headers: { authorization: `Bearer ${config.token}` },
            // root_id: the thread's root post, every part a reply in it (https://api.mattermost.com/#tag/posts/operation/CreatePost)
            json: { channel_id: message.to, message: text, pending_post_id: key, ...(message.threadId && { root_id: message.threadId }) },
            signal: message.signal,
            timeoutMs: message.requestTimeoutMs,
            secrets: [config.token],
            errorText: (b) => b?.message,
            reason: (b) => (typeof b?.id === 'string' ? b.id : undefined),
          });
          return typeof body?.id === 'string' ? body.id : undefined;
        },
        'codepoints',
      );
    },
  };
}
