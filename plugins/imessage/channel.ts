import { callPlatform, joinUrl } from '../../src/plugins/channel-http.js';
import { ChannelError, type ChannelAdapter } from '../../src/plugins/sdk.js';
import { sendInParts } from '../../src/plugins/split-message.js';
import type { ImessageConfig } from './manifest.js';

export const IMESSAGE_MAX_CHARS = 20000;

/**
 * BlueBubbles refuses a tempGuid it is still sending (400 "Message is already queued to be
 * sent!"): that is an earlier attempt of this very part, which timed out on our side while
 * the server kept going. It is being delivered; sending it again would make a copy.
 */
function isAlreadyQueued(error: unknown): boolean {
  return error instanceof ChannelError && error.status === 400 && /already queued to be sent/i.test(error.message);
}

/** `POST {url}/api/v1/message/text?password=… {chatGuid, message, tempGuid}` (BlueBubbles). */
export function imessageChannel(config: ImessageConfig): ChannelAdapter {
  return {
    send: (message) =>
      sendInParts(message, IMESSAGE_MAX_CHARS, async ({ text, key }) => {
        try {
          const { body } = await callPlatform({
            platform: 'imessage',
            url: joinUrl(config.url, `/api/v1/message/text?password=${encodeURIComponent(config.password)}`),
            json: { chatGuid: message.to, message: text, tempGuid: key, method: config.method },
            signal: message.signal,
            secrets: [config.password],
            errorText: (b) => b?.error?.message ?? b?.message,
          });
          return typeof body?.data?.guid === 'string' ? body.data.guid : undefined;
        } catch (error) {
          if (isAlreadyQueued(error)) return undefined;
          throw error;
        }
      }),
  };
}
