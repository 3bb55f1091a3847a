import { callPlatform, joinUrl } from '../../src/plugin-sdk/channel-http.js';
import { ChannelError, type ChannelAdapter } from '../../src/plugin-sdk/sdk.js';
import { sendInParts } from '../../src/plugin-sdk/split-message.js';
import type { SlackConfig } from './config.js';

/** Slack truncates past 40000 characters and advises at most 4000 per message */
export const SLACK_MAX_CHARS = 4000;

/**
 * chat.postMessage answers HTTP 200 `{ok:false, error}` (https://api.slack.com/methods/chat.postMessage#errors).
 * These codes mean "try again later"; every other one (`channel_not_found`, `not_in_channel`,
 * `is_archived`, `invalid_auth`, `not_authed`, `account_inactive`, `token_revoked`, `missing_scope`,
 * `restricted_action`, `msg_too_long`, ...) means "this request will never work": permanent.
 * A 429 carries Retry-After in seconds (https://api.slack.com/apis/rate-limits).
 */
const TRANSIENT = new Set(['internal_error', 'fatal_error', 'service_unavailable', 'request_timeout', 'ratelimited', 'rate_limited']);

/**
 * Slack's formatting reference: "&" "<" ">" are control characters and must be sent as
 * `&amp;` `&lt;` `&gt;` (https://api.slack.com/reference/surfaces/formatting#escaping). Unescaped,
 * a reply echoing webhook content garbles and `<!channel>`, `<!here>`, `<@U…>` notify people.
 */
export function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** `POST {baseUrl}/chat.postMessage`, Bearer, `{channel, text}`; HTTP 200 with `ok:false` is a failure. */
export function slackChannel(config: SlackConfig): ChannelAdapter {
  return {
    send: (message) =>
      sendInParts(message, SLACK_MAX_CHARS, async ({ text }) => {
        const { body } = await callPlatform({
          platform: 'slack',
          url: joinUrl(config.baseUrl, '/chat.postMessage'),
          headers: { authorization: `Bearer ${config.botToken}` },
          // thread_ts: reply in that thread (https://api.slack.com/methods/chat.postMessage#arg_thread_ts)
          json: { channel: message.to, text: escapeSlack(text), ...(message.threadId && { thread_ts: message.threadId }) },
          signal: message.signal,
          timeoutMs: message.requestTimeoutMs,
          secrets: [config.botToken],
          errorText: (b) => b?.error,
          reason: (b) => b?.error,
        });
        if (!body || body.ok !== true) {
          const error = typeof body?.error === 'string' ? body.error : 'ok:false';
          throw TRANSIENT.has(error) ? ChannelError.transient(`slack: ${error}`, error) : ChannelError.permanent(`slack: ${error}`, error);
        }
        return typeof body.ts === 'string' ? body.ts : undefined;
      }),
  };
}
