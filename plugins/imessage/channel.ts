import { callPlatform, joinUrl } from '../../src/plugins/channel-http.js';
import type { ChannelAdapter } from '../../src/plugins/sdk.js';
import { sendInParts } from '../../src/plugins/split-message.js';
import type { ImessageConfig } from './manifest.js';

export const IMESSAGE_MAX_CHARS = 20000;

/** `POST {url}/api/v1/message/text?password=… {chatGuid, message, tempGuid}` (BlueBubbles). */
export function imessageChannel(config: ImessageConfig): ChannelAdapter {
  return {
    send: (message) =>
      sendInParts(message, IMESSAGE_MAX_CHARS, async ({ text, key }) => {
        const { body } = await callPlatform({
          platform: 'imessage',
          url: joinUrl(config.url, `/api/v1/message/text?password=${encodeURIComponent(config.password)}`),
          json: { chatGuid: message.to, message: text, tempGuid: key, method: config.method },
          signal: message.signal,
          errorText: (b) => b?.error?.message ?? b?.message,
        });
        return typeof body?.data?.guid === 'string' ? body.data.guid : undefined;
      }),
  };
}
