import { callPlatform, joinUrl, type Verdict } from '../../src/plugin-sdk/channel-http.js';
import { ChannelError, type ChannelAdapter } from '../../src/plugin-sdk/sdk.js';
import { sendInParts } from '../../src/plugin-sdk/split-message.js';
import type { SignalConfig } from './config.js';

export const SIGNAL_MAX_CHARS = 2000;

/**
 * signal-cli-rest-api answers 400 `{error}` for every failure but a rate limit (429), whatever its
 * cause (src/api/api.go, SendV2: `c.JSON(400, Error{Msg: err.Error()})`): a signal-cli daemon
 * that is down or a Signal server error looks like a bad recipient. The message tells them apart.
 */
const FINAL = /unregistered|not registered|invalid (phone )?number|invalid recipient|unknown (recipient|group)|group not found|not a member|no such|invalid group|is not a valid|couldn't process request/i;
const TRANSIENT = /rate.?limit|too many|proof required|network|timed? ?out|timeout|unavailable|daemon|unreachable|connect|connection|refused|jsonrpc|json-rpc|i\/o|\beof\b|server error|status code 5\d\d|\b5\d\d\b|try again|temporar|io error|socket/i;

/** the verdict on one signal-cli error text */
export function classifySignalError(text: string): Verdict {
  if (FINAL.test(text)) return { retryable: false };
  return { retryable: TRANSIENT.test(text) };
}

/** the per-recipient errors of a 201 answer: `[{timestamp, errors?}]`, or `{timestamp, errors?}` */
function recipientErrors(body: any): string[] {
  const entries = Array.isArray(body) ? body : body && typeof body === 'object' ? [body] : [];
  const errors: string[] = [];
  for (const entry of entries) {
    for (const e of Array.isArray(entry?.errors) ? entry.errors : entry?.error ? [entry.error] : []) {
      errors.push(typeof e === 'string' ? e : (e?.message ?? e?.error ?? e?.type ?? JSON.stringify(e)));
    }
  }
  return errors;
}

function timestampOf(body: any): string | undefined {
  const entry = Array.isArray(body) ? body[0] : body;
  return entry?.timestamp === undefined || entry?.timestamp === null ? undefined : String(entry.timestamp);
}

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
          timeoutMs: message.requestTimeoutMs,
          errorText: (b) => b?.error,
          classify: (status, b) => (status === 400 && typeof b?.error === 'string' ? classifySignalError(b.error) : undefined),
        });
        // a 201 can still carry a failure for the one recipient: the part was not delivered
        const errors = recipientErrors(body);
        if (errors.length) {
          const text = errors.join('; ');
          throw new ChannelError(`signal: ${text.slice(0, 300)}`, classifySignalError(text).retryable, 201);
        }
        return timestampOf(body);
      }),
  };
}
