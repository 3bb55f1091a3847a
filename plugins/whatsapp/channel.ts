import { callPlatform, joinUrl } from '../../src/plugin-sdk/channel-http.js';
import type { ChannelAdapter } from '../../src/plugin-sdk/sdk.js';
import { sendInParts } from '../../src/plugin-sdk/split-message.js';
import type { WhatsappConfig } from './config.js';

export const WHATSAPP_MAX_CHARS = 4096;

/**
 * Graph error codes that mean "slow down" or "try again", even when they come with a 400
 * (https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes): 4 too many
 * API calls, 80007 rate limit, 130429 throughput, 131048 spam rate limit, 131056 pair rate limit;
 * 1 / 2 / 131000 / 131016 unknown error, service temporarily unavailable.
 */
const TRANSIENT_CODES = new Set([1, 2, 4, 80007, 130429, 131000, 131016, 131048, 131056]);
/*
 * Every other code is permanent, e.g. 190 access token expired (401), 10 / 200 permission denied,
 * 100 invalid parameter, 131026 message undeliverable, 131030 recipient not in the allowed list,
 * 131047 re-engagement message (more than 24 hours since the user last wrote), 131051 unsupported
 * message type; the reason is `<code> <title>`.
 */
const whatsappReason = (b: any): string | undefined =>
  b?.error?.code === undefined ? undefined : `${b.error.code} ${String(b.error.message ?? '').replace(/^\(#\d+\)\s*/, '')}`.trim();

/** `POST {baseUrl}/{phoneNumberId}/messages`, Bearer, `{messaging_product, to, type:"text", text:{body}}`. */
export function whatsappChannel(config: WhatsappConfig): ChannelAdapter {
  return {
    send: (message) =>
      sendInParts(message, WHATSAPP_MAX_CHARS, async ({ text, index }) => {
        const { body } = await callPlatform({
          platform: 'whatsapp',
          url: joinUrl(config.baseUrl, `/${encodeURIComponent(config.phoneNumberId)}/messages`),
          headers: { authorization: `Bearer ${config.accessToken}` },
          json: {
            messaging_product: 'whatsapp',
            recipient_type: 'individual',
            to: message.to,
            type: 'text',
            text: { body: text },
            // a reply quotes the message it answers (the first part only)
            // (https://developers.facebook.com/docs/whatsapp/cloud-api/guides/send-messages#replies)
            ...(message.threadId && index === 0 && { context: { message_id: message.threadId } }),
          },
          signal: message.signal,
          timeoutMs: message.requestTimeoutMs,
          secrets: [config.accessToken],
          errorText: (b) => (b?.error ? `${b.error.message ?? 'error'}${b.error.code ? ` (code ${b.error.code})` : ''}` : undefined),
          reason: whatsappReason,
          // the code from the JSON error object, not from the (clipped) message text
          classify: (_status, b) => (TRANSIENT_CODES.has(Number(b?.error?.code)) ? { retryable: true } : undefined),
        });
        return typeof body?.messages?.[0]?.id === 'string' ? body.messages[0].id : undefined;
      }),
  };
}
