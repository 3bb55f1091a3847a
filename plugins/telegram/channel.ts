import { callPlatform, joinUrl, secondsToMs } from '../../src/plugin-sdk/channel-http.js';
import { ChannelError, type ChannelAdapter } from '../../src/plugin-sdk/sdk.js';
import { sendInParts } from '../../src/plugin-sdk/split-message.js';
import type { TelegramConfig } from './config.js';

/** Telegram's limit on one message's text */
export const TELEGRAM_MAX_CHARS = 4096;

/**
 * A group upgraded to a supergroup gets a new id; Telegram refuses the old one with 400 and
 * `parameters.migrate_to_chat_id` (https://core.telegram.org/bots/api#responseparameters).
 */
function migratedTo(error: unknown): string | undefined {
  if (!(error instanceof ChannelError) || error.status !== 400) return undefined;
  const id = (error.body as { parameters?: { migrate_to_chat_id?: unknown } } | undefined)?.parameters?.migrate_to_chat_id;
  return typeof id === 'number' || typeof id === 'string' ? String(id) : undefined;
}

/**
 * `threadId` on Telegram: a forum topic id (`message_thread_id`, every part goes to the topic) or
 * `reply:<message_id>` (`reply_parameters`, the first part replies; sent even if that message is
 * gone) (https://core.telegram.org/bots/api#sendmessage, #replyparameters).
 */
export function telegramThread(threadId: string | undefined, index: number): Record<string, unknown> {
  if (!threadId) return {};
  const reply = /^reply:(\d+)$/.exec(threadId);
  if (reply) return index === 0 ? { reply_parameters: { message_id: Number(reply[1]), allow_sending_without_reply: true } } : {};
  if (/^\d+$/.test(threadId)) return { message_thread_id: Number(threadId) };
  throw new ChannelError(`telegram: threadId "${threadId}" is neither a topic id nor reply:<message_id>`, false);
}

/**
 * `POST {baseUrl}/bot{token}/sendMessage {chat_id, text}`; Telegram has no idempotency key.
 * Errors (https://core.telegram.org/bots/api#making-requests): `{ok:false, error_code, description,
 * parameters}`; 429 carries `parameters.retry_after` (seconds). The Bot API lists no codes of its
 * own: 400 (`Bad Request: chat not found`), 401 (`Unauthorized`: a revoked token) and 403
 * (`Forbidden: bot was blocked by the user`, `... kicked from the group chat`) are permanent, the
 * `description` their reason; 429 and 5xx are transient.
 */
export function telegramChannel(config: TelegramConfig): ChannelAdapter {
  return {
    send: (message) => {
      let chatId = message.to;
      const post = (text: string, index: number) =>
        callPlatform({
          platform: 'telegram',
          url: joinUrl(config.baseUrl, `/bot${config.botToken}/sendMessage`),
          json: { chat_id: chatId, text, ...telegramThread(message.threadId, index) },
          signal: message.signal,
          timeoutMs: message.requestTimeoutMs,
          secrets: [config.botToken],
          errorText: (b) => b?.description,
          reason: (b) => b?.description,
          retryAfterMs: (b) => secondsToMs(b?.parameters?.retry_after),
        });
      return sendInParts(message, TELEGRAM_MAX_CHARS, async ({ text, index }) => {
        let response;
        try {
          response = await post(text, index);
        } catch (error) {
          const next = migratedTo(error);
          if (!next || next === chatId) throw error;
          // the rest of this message goes to the supergroup too; nothing was sent to the old id
          chatId = next;
          response = await post(text, index);
        }
        const { body } = response;
        if (body?.ok === false) throw ChannelError.permanent(`telegram: ${body.description ?? 'not ok'}`, String(body.description ?? 'not ok'));
        return body?.result?.message_id === undefined ? undefined : String(body.result.message_id);
      });
    },
  };
}
