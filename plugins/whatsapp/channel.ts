import { callPlatform, joinUrl } from '../../src/plugins/channel-http.js';
import { ChannelError, type ChannelAdapter } from '../../src/plugins/sdk.js';
import { sendInParts } from '../../src/plugins/split-message.js';
import type { WhatsappConfig } from './manifest.js';

export const WHATSAPP_MAX_CHARS = 4096;

/** Graph error codes that mean "slow down", even when they come with a 400 */
const RATE_LIMIT_CODES = new Set([4, 80007, 130429, 131048, 131056]);

/** `POST {baseUrl}/{phoneNumberId}/messages`, Bearer, `{messaging_product, to, type:"text", text:{body}}`. */
export function whatsappChannel(config: WhatsappConfig): ChannelAdapter {
  return {
    send: (message) =>
      sendInParts(message, WHATSAPP_MAX_CHARS, async ({ text }) => {
        try {
          const { body } = await callPlatform({
            platform: 'whatsapp',
            url: joinUrl(config.baseUrl, `/${encodeURIComponent(config.phoneNumberId)}/messages`),
            headers: { authorization: `Bearer ${config.accessToken}` },
            json: { messaging_product: 'whatsapp', recipient_type: 'individual', to: message.to, type: 'text', text: { body: text } },
            signal: message.signal,
            secrets: [config.accessToken],
            errorText: (b) => (b?.error ? `${b.error.message ?? 'error'}${b.error.code ? ` (code ${b.error.code})` : ''}` : undefined),
          });
          return typeof body?.messages?.[0]?.id === 'string' ? body.messages[0].id : undefined;
        } catch (error) {
          if (error instanceof ChannelError && !error.retryable && /\(code (\d+)\)/.test(error.message)) {
            const code = Number(/\(code (\d+)\)/.exec(error.message)![1]);
            if (RATE_LIMIT_CODES.has(code)) throw new ChannelError(error.message, true, error.status);
          }
          throw error;
        }
      }),
  };
}
