import { callPlatform, joinUrl } from '../../src/plugins/channel-http.js';
import type { ChannelAdapter } from '../../src/plugins/sdk.js';
import { sendInParts } from '../../src/plugins/split-message.js';
import type { SignalConfig } from './manifest.js';

export const SIGNAL_MAX_CHARS = 2000;

/** `POST {url}/v2/send {message, number, recipients: [to]}`; signal-cli offers no idempotency key. */
export function signalChannel(config: SignalConfig): ChannelAdapter {
  return {
    send: (message) =>
      sendInParts(message, SIGNAL_MAX_CHARS, async ({ text }) => {
        const { body } = await callPlatform({
          platform: 'signal',
          url: joinUrl(config.url, '/v2/send'),
          json: { message: text, number: config.number, recipients: [message.to] },
          signal: message.signal,
          errorText: (b) => b?.error,
        });
        return body?.timestamp === undefined ? undefined : String(body.timestamp);
      }),
  };
}
