import { createHash } from 'node:crypto';
import { callPlatform, joinUrl, pathSegment, secondsToMs } from '../../src/plugin-sdk/channel-http.js';
import type { ChannelAdapter } from '../../src/plugin-sdk/sdk.js';
import { sendInParts } from '../../src/plugin-sdk/split-message.js';
import type { DiscordConfig } from './manifest.js';

export const DISCORD_MAX_CHARS = 2000;

/** Discord requires `DiscordBot ($url, $versionNumber)`; Cloudflare may block requests without it */
export const DISCORD_USER_AGENT = 'DiscordBot (herald, 0.1.0)';

/** Discord nonces are at most 25 characters; a hash of the part's key fits and stays stable */
export function discordNonce(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 25);
}

/**
 * Discord's JSON error codes (https://discord.com/developers/docs/topics/opcodes-and-status-codes#json-json-error-codes)
 * name the cause: 10003 Unknown Channel (404), 50001 Missing Access and 50013 Missing Permissions
 * (403), 50007 Cannot send messages to this user, 40001 Unauthorized... are permanent, whatever
 * their status. 130000 "API resource is currently overloaded" is transient, as are 429 (with
 * `retry_after`, https://discord.com/developers/docs/topics/rate-limits) and 5xx.
 */
const OVERLOADED = 130000;

/** a Discord error's reason: its JSON code and message, e.g. `10003 Unknown Channel` */
function discordReason(body: any): string | undefined {
  if (typeof body?.code !== 'number') return undefined;
  return `${body.code}${typeof body.message === 'string' ? ` ${body.message}` : ''}`;
}

/**
 * `POST {baseUrl}/channels/{to}/messages`, `Authorization: Bot <token>`, `{content}`.
 * `allowed_mentions` (default `{parse: []}`): Discord otherwise parses `@everyone`, `@here`,
 * `<@id>` and `<@&role>` in the content and pings them
 * (https://discord.com/developers/docs/resources/message#allowed-mentions-object).
 */
export function discordChannel(config: DiscordConfig): ChannelAdapter {
  return {
    send: (message) =>
      sendInParts(message, DISCORD_MAX_CHARS, async ({ text, key, index }) => {
        const { body } = await callPlatform({
          platform: 'discord',
          url: joinUrl(config.baseUrl, `/channels/${pathSegment(message.to)}/messages`),
          headers: { authorization: `Bot ${config.botToken}`, 'user-agent': DISCORD_USER_AGENT },
          // enforce_nonce: a retry of a part Discord already created (within its window of a few
          // minutes) returns that message instead of a copy
          json: {
            content: text,
            nonce: discordNonce(key),
            enforce_nonce: true,
            allowed_mentions: config.allowedMentions,
            // threadId: the message replied to (the first part only; the rest follow it). A Discord thread is a
            // channel of its own: its id goes in `to` (https://discord.com/developers/docs/resources/message#message-reference-structure)
            ...(message.threadId && index === 0 && { message_reference: { message_id: message.threadId, fail_if_not_exists: false } }),
          },
          signal: message.signal,
          timeoutMs: message.requestTimeoutMs,
          secrets: [config.botToken],
          errorText: (b) => b?.message,
          reason: discordReason,
          classify: (_status, b) => (b?.code === OVERLOADED ? { retryable: true } : undefined),
          retryAfterMs: (b) => secondsToMs(b?.retry_after),
        });
        return typeof body?.id === 'string' ? body.id : undefined;
      }),
  };
}
