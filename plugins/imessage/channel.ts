import { callPlatform, joinUrl, type Verdict } from '../../src/plugin-sdk/channel-http.js';
import type { ChannelAdapter, ChannelMessage } from '../../src/plugin-sdk/sdk.js';
import { sendInParts } from '../../src/plugin-sdk/split-message.js';
import type { ImessageConfig } from './config.js';

export const IMESSAGE_MAX_CHARS = 20000;
/** how long to wait before asking again about a part BlueBubbles is still sending */
const STILL_SENDING_RETRY_MS = 15_000;

/**
 * BlueBubbles' message router (`MessageRouter.sendText`) sends synchronously: a 200 means
 * Messages took the message. It keeps the `tempGuid` in a send cache only while that request
 * runs, and refuses a second request for it with 400 "Message is already queued to be sent":
 * the earlier attempt is still going and may yet fail, so that is not a success; wait and look
 * again. A 500 `iMessage Error` that carries the message (`data` with its `error` code) is
 * Messages' own refusal: final, resending would only fail again. A 500 without it (AppleScript or
 * helper trouble) is retried, and a retry first looks for the part in the chat (below).
 */
function classify(status: number, body: any): Verdict | undefined {
  const text = `${body?.error?.message ?? ''} ${body?.message ?? ''}`;
  if (status === 400 && /already queued to be sent/i.test(text)) return { retryable: true, retryAfterMs: STILL_SENDING_RETRY_MS };
  if (status === 500 && /imessage/i.test(String(body?.error?.type ?? ''))) return { retryable: !(body?.data && typeof body.data === 'object') };
  return undefined;
}

/**
 * On a retry, the part an earlier attempt was sending may have gone out after all (its answer
 * was lost, or it was still being sent). BlueBubbles forgets the `tempGuid` once a send is done,
 * so ask the chat instead: a message from us with this very text, made since the delivery was
 * created, is that part.
 */
async function alreadyInChat(config: ImessageConfig, message: ChannelMessage, text: string): Promise<string | undefined> {
  const { body } = await callPlatform({
    platform: 'imessage',
    url: joinUrl(config.url, `/api/v1/message/query?password=${encodeURIComponent(config.password)}`),
    json: { chatGuid: message.to, limit: 50, offset: 0, sort: 'DESC', after: Date.parse(message.createdAt), with: ['attributedBody'] },
    signal: message.signal,
    timeoutMs: message.requestTimeoutMs,
    secrets: [config.password],
    errorText: (b) => b?.error?.message ?? b?.message,
  });
  const found = (Array.isArray(body?.data) ? body.data : []).find(
    (m: any) => m?.isFromMe && (m.text ?? m.attributedBody?.[0]?.string) === text && typeof m.guid === 'string',
  );
  return found?.guid;
}

/** `POST {url}/api/v1/message/text?password=… {chatGuid, message, tempGuid}` (BlueBubbles). */
export function imessageChannel(config: ImessageConfig): ChannelAdapter {
  return {
    send: (message) =>
      sendInParts(message, IMESSAGE_MAX_CHARS, async ({ text, key, index }) => {
        if ((message.attempt ?? 1) > 1 && index === (message.partsSent ?? 0)) {
          const guid = await alreadyInChat(config, message, text);
          if (guid) return guid;
        }
        const { body } = await callPlatform({
          platform: 'imessage',
          url: joinUrl(config.url, `/api/v1/message/text?password=${encodeURIComponent(config.password)}`),
          json: {
            chatGuid: message.to,
            message: text,
            tempGuid: key,
            method: config.method,
            // a reply to that message (BlueBubbles needs its Private API for replies: apple-script ignores it)
            ...(message.threadId && index === 0 && config.method === 'private-api' && { selectedMessageGuid: message.threadId, partIndex: 0 }),
          },
          signal: message.signal,
          timeoutMs: message.requestTimeoutMs,
          secrets: [config.password],
          errorText: (b) => b?.error?.message ?? b?.message,
          classify,
        });
        return typeof body?.data?.guid === 'string' ? body.data.guid : undefined;
      }),
  };
}
