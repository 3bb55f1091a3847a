import { callPlatform, joinUrl, secondsToMs } from '../../src/plugins/channel-http.js';
import { ChannelError, type ChannelAdapter } from '../../src/plugins/sdk.js';
import { sendInParts } from '../../src/plugins/split-message.js';
import type { TelegramConfig } from './manifest.js';

/** Telegram's limit on one message's text */
export const TELEGRAM_MAX_CHARS = 4096;

/** `POST {baseUrl}/bot{token}/sendMessage {chat_id, text}`; Telegram has no idempotency key. */
export function telegramChannel(config: TelegramConfig): ChannelAdapter {
  return {
    send: (message) =>
      sendInParts(message, TELEGRAM_MAX_CHARS, async ({ text }) => {
        const { body } = await callPlatform({
          platform: 'telegram',
          url: joinUrl(config.baseUrl, `/bot${config.botToken}/sendMessage`),
          json: { chat_id: message.to, text },
          signal: message.signal,
          secrets: [config.botToken],
          errorText: (b) => b?.description,
          retryAfterMs: (b) => secondsToMs(b?.parameters?.retry_after),
        });
        if (body?.ok === false) throw new ChannelError(`telegram: ${body.description ?? 'not ok'}`, false);
        return body?.result?.message_id === undefined ? undefined : String(body.result.message_id);
      }),
  };
}
