import { callPlatform, joinUrl } from '../../src/plugins/channel-http.js';
import type { ChannelAdapter } from '../../src/plugins/sdk.js';
import { sendInParts } from '../../src/plugins/split-message.js';
import type { MattermostConfig } from './manifest.js';

/** the server's default maximum post size */
export const MATTERMOST_MAX_CHARS = 16383;

/** `POST {url}/api/v4/posts`, Bearer, `{channel_id, message}`. */
export function mattermostChannel(config: MattermostConfig): ChannelAdapter {
  return {
    send: (message) =>
      sendInParts(message, MATTERMOST_MAX_CHARS, async ({ text, key }) => {
        const { body } = await callPlatform({
          platform: 'mattermost',
          url: joinUrl(config.url, '/api/v4/posts'),
          headers: { authorization: `Bearer ${config.token}` },
          json: { channel_id: message.to, message: text, pending_post_id: key },
          signal: message.signal,
          secrets: [config.token],
          errorText: (b) => b?.message,
        });
        return typeof body?.id === 'string' ? body.id : undefined;
      }),
  };
}
