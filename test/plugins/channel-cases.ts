import { expect } from 'vitest';
import type { PluginDefinition } from '../../src/plugin-sdk/sdk.js';
import { discordPlugin } from '../../plugins/discord/manifest.js';
import { imessagePlugin } from '../../plugins/imessage/manifest.js';
import { mattermostPlugin } from '../../plugins/mattermost/manifest.js';
import { msteamsPlugin } from '../../plugins/msteams/manifest.js';
import { signalPlugin } from '../../plugins/signal/manifest.js';
import { slackPlugin } from '../../plugins/slack/manifest.js';
import { telegramPlugin } from '../../plugins/telegram/manifest.js';
import { webhookPlugin } from '../../plugins/webhook/manifest.js';
import { whatsappPlugin } from '../../plugins/whatsapp/manifest.js';
import type { ChannelCase } from './channel.case.js';

const as = (p: unknown) => p as PluginDefinition;
export const TELEGRAM_TOKEN = '123456:telegram-secret-token';
export const SLACK_TOKEN = 'xoxb-slack-secret-token';
export const DISCORD_TOKEN = 'discord-secret-token';
export const MATTERMOST_TOKEN = 'mattermost-secret-token';
export const IMESSAGE_PASSWORD = 'bluebubbles-secret-password';
export const TEAMS_PASSWORD = 'teams-secret-password';
export const TEAMS_ACCESS_TOKEN = 'teams-access-token-from-login';
export const WHATSAPP_TOKEN = 'whatsapp-secret-token';
export const WEBHOOK_SECRET = `whsec_${Buffer.from('webhook-secret-bytes-0123456789').toString('base64')}`;

/** One case per built-in channel: how its platform is called and how it answers. */
export const channelCases: ChannelCase[] = [
  {
    // https://core.telegram.org/bots/api#making-requests: `{ok, result}` or `{ok:false, error_code,
    // description, parameters}`; https://core.telegram.org/bots/api#responseparameters (retry_after)
    plugin: as(telegramPlugin),
    config: (url) => ({ botToken: TELEGRAM_TOKEN, baseUrl: url }),
    secrets: [TELEGRAM_TOKEN],
    to: '-1001234567890',
    isSend: (r) => r.path.endsWith('/sendMessage'),
    ok: { body: { ok: true, result: { message_id: 42 } } },
    expectSend(r, text, to) {
      expect(r.method).toBe('POST');
      expect(r.path).toBe(`/bot${TELEGRAM_TOKEN}/sendMessage`);
      expect(r.json).toEqual({ chat_id: to, text });
    },
    maxChars: 4096,
    rejected: { response: { status: 400, body: { ok: false, error_code: 400, description: 'Bad Request: chat not found' } }, text: 'Bad Request: chat not found' },
    rateLimited: {
      response: { status: 429, body: { ok: false, error_code: 429, description: 'Too Many Requests: retry after 3', parameters: { retry_after: 3 } } },
      retryAfterMs: 3000,
    },
    // https://core.telegram.org/bots/api#making-requests: the description is the only name of a cause
    documented: [
      { response: { status: 400, body: { ok: false, error_code: 400, description: 'Bad Request: chat not found' } }, kind: 'permanent', reason: 'Bad Request: chat not found' },
      { response: { status: 403, body: { ok: false, error_code: 403, description: 'Forbidden: bot was blocked by the user' } }, kind: 'permanent', reason: 'Forbidden: bot was blocked by the user' },
      { response: { status: 403, body: { ok: false, error_code: 403, description: 'Forbidden: bot was kicked from the group chat' } }, kind: 'permanent', reason: 'Forbidden: bot was kicked from the group chat' },
      { response: { status: 401, body: { ok: false, error_code: 401, description: 'Unauthorized' } }, kind: 'permanent', reason: 'Unauthorized' },
      { response: { status: 429, body: { ok: false, error_code: 429, description: 'Too Many Requests: retry after 5', parameters: { retry_after: 5 } } }, kind: 'transient', reason: 'Too Many Requests' },
      { response: { status: 502, body: { ok: false, error_code: 502, description: 'Bad Gateway' } }, kind: 'transient', reason: 'Bad Gateway' },
    ],
  },
  {
    // https://api.slack.com/methods/chat.postMessage: HTTP 200 with `ok:false, error` for a refused
    // request; https://api.slack.com/apis/rate-limits: 429 with a Retry-After header (seconds)
    plugin: as(slackPlugin),
    config: (url) => ({ botToken: SLACK_TOKEN, baseUrl: url }),
    secrets: [SLACK_TOKEN],
    to: 'C0123456789',
    isSend: (r) => r.path === '/chat.postMessage',
    ok: { body: { ok: true, channel: 'C0123456789', ts: '1700000000.000100' } },
    expectSend(r, text, to) {
      expect(r.headers.authorization).toBe(`Bearer ${SLACK_TOKEN}`);
      // without a charset Slack answers a `missing_charset` warning
      expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(r.json).toEqual({ channel: to, text });
    },
    maxChars: 4000,
    // Slack answers 200 with ok:false for a request it refuses
    rejected: { response: { status: 200, body: { ok: false, error: 'channel_not_found' } }, text: 'channel_not_found' },
    rateLimited: { response: { status: 429, headers: { 'retry-after': '7' }, body: { ok: false, error: 'ratelimited' } }, retryAfterMs: 7000 },
    // https://api.slack.com/methods/chat.postMessage#errors
    documented: [
      { response: { status: 200, body: { ok: false, error: 'channel_not_found' } }, kind: 'permanent', reason: 'channel_not_found' },
      { response: { status: 200, body: { ok: false, error: 'not_in_channel' } }, kind: 'permanent', reason: 'not_in_channel' },
      { response: { status: 200, body: { ok: false, error: 'invalid_auth' } }, kind: 'permanent', reason: 'invalid_auth' },
      { response: { status: 200, body: { ok: false, error: 'is_archived' } }, kind: 'permanent', reason: 'is_archived' },
      { response: { status: 200, body: { ok: false, error: 'account_inactive' } }, kind: 'permanent', reason: 'account_inactive' },
      { response: { status: 200, body: { ok: false, error: 'internal_error' } }, kind: 'transient', reason: 'internal_error' },
      { response: { status: 200, body: { ok: false, error: 'service_unavailable' } }, kind: 'transient', reason: 'service_unavailable' },
      { response: { status: 200, body: { ok: false, error: 'ratelimited' } }, kind: 'transient', reason: 'ratelimited' },
    ],
  },
  {
    // https://discord.com/developers/docs/resources/message#create-message (200 with the message);
    // errors `{message, code}` (https://discord.com/developers/docs/reference#error-messages);
    // https://discord.com/developers/docs/topics/rate-limits: 429 `{message, retry_after, global}`
    plugin: as(discordPlugin),
    config: (url) => ({ botToken: DISCORD_TOKEN, baseUrl: url }),
    secrets: [DISCORD_TOKEN],
    to: '1234567890123456789',
    isSend: (r) => /^\/channels\/[^/]+\/messages$/.test(r.path),
    ok: { body: { id: '99', content: 'x' } },
    expectSend(r, text, to) {
      expect(r.path).toBe(`/channels/${to}/messages`);
      expect(r.headers.authorization).toBe(`Bot ${DISCORD_TOKEN}`);
      // Discord requires `DiscordBot ($url, $versionNumber)`
      expect(r.headers['user-agent']).toMatch(/^DiscordBot \(.+, .+\)$/);
      expect(r.json).toMatchObject({ content: text, enforce_nonce: true, allowed_mentions: { parse: [] } });
      expect(r.json.nonce).toMatch(/^[0-9a-f]{25}$/);
    },
    maxChars: 2000,
    rejected: { response: { status: 403, body: { message: 'Missing Permissions', code: 50013 } }, text: 'Missing Permissions' },
    // the body's retry_after (seconds, fractional) is more precise than the header
    rateLimited: { response: { status: 429, headers: { 'retry-after': '2' }, body: { message: 'You are being rate limited.', retry_after: 1.5, global: false } }, retryAfterMs: 1500 },
    // https://discord.com/developers/docs/topics/opcodes-and-status-codes#json-json-error-codes
    documented: [
      { response: { status: 404, body: { message: 'Unknown Channel', code: 10003 } }, kind: 'permanent', reason: '10003 Unknown Channel' },
      { response: { status: 403, body: { message: 'Missing Access', code: 50001 } }, kind: 'permanent', reason: '50001 Missing Access' },
      { response: { status: 403, body: { message: 'Missing Permissions', code: 50013 } }, kind: 'permanent', reason: '50013 Missing Permissions' },
      { response: { status: 403, body: { message: 'Cannot send messages to this user', code: 50007 } }, kind: 'permanent', reason: '50007 Cannot send messages to this user' },
      { response: { status: 401, body: { message: '401: Unauthorized', code: 0 } }, kind: 'permanent', reason: '0 401: Unauthorized' },
      { response: { status: 503, body: { message: 'API resource is currently overloaded. Try again a little later', code: 130000 } }, kind: 'transient', reason: '130000 API resource is currently overloaded. Try again a little later' },
    ],
  },
  {
    // https://api.mattermost.com/#tag/posts/operation/CreatePost: 201 with the post; errors are
    // AppError `{id, message, detailed_error, request_id, status_code}`; the client config
    // (GET /api/v4/config/client?format=old) carries MaxPostSize as a string
    plugin: as(mattermostPlugin),
    config: (url) => ({ url, token: MATTERMOST_TOKEN }),
    secrets: [MATTERMOST_TOKEN],
    to: '4xp9fdt77pncbef59f4k1qe83o',
    isSend: (r) => r.path === '/api/v4/posts',
    other: (r) => (r.path === '/api/v4/config/client' && r.query.format === 'old' ? { body: { MaxPostSize: '16383', Version: '9.11.0' } } : { status: 404, body: {} }),
    ok: { status: 201, body: { id: 'post1' } },
    expectSend(r, text, to) {
      expect(r.headers.authorization).toBe(`Bearer ${MATTERMOST_TOKEN}`);
      expect(r.json).toMatchObject({ channel_id: to, message: text });
      expect(typeof r.json.pending_post_id).toBe('string');
    },
    maxChars: 16383,
    rejected: {
      response: { status: 403, body: { id: 'api.context.permissions.app_error', message: 'You do not have the appropriate permissions.', detailed_error: '', request_id: 'r1', status_code: 403 } },
      text: 'You do not have the appropriate permissions.',
    },
    rateLimited: { response: { status: 429, headers: { 'retry-after': '1' }, body: { message: 'too many requests' } }, retryAfterMs: 1000 },
    // https://api.mattermost.com/#tag/errors (AppError); ids from the server's i18n/en.json
    documented: [
      { response: { status: 403, body: { id: 'api.context.permissions.app_error', message: 'You do not have the appropriate permissions.', detailed_error: '', request_id: 'r1', status_code: 403 } }, kind: 'permanent', reason: 'api.context.permissions.app_error' },
      { response: { status: 404, body: { id: 'app.channel.get.existing.app_error', message: 'Unable to find the existing channel.', detailed_error: '', request_id: 'r1', status_code: 404 } }, kind: 'permanent', reason: 'app.channel.get.existing.app_error' },
      { response: { status: 401, body: { id: 'api.context.session_expired.app_error', message: 'Invalid or expired session, please login again.', detailed_error: '', request_id: 'r1', status_code: 401 } }, kind: 'permanent', reason: 'api.context.session_expired.app_error' },
      { response: { status: 500, body: { id: 'app.post.save.app_error', message: 'Unable to save the post.', detailed_error: '', request_id: 'r1', status_code: 500 } }, kind: 'transient', reason: 'app.post.save.app_error' },
    ],
  },
  {
    // signal-cli-rest-api, src/api/api.go (SendV2) and its swagger (https://bbernhard.github.io/signal-cli-rest-api/):
    // 201 `{timestamp}` on success, 400 `{error}` for every failure but a rate limit, 429 for that
    plugin: as(signalPlugin),
    config: (url) => ({ url, number: '+4915100000000' }),
    secrets: [],
    to: '+4915112345678',
    isSend: (r) => r.path === '/v2/send',
    ok: { status: 201, body: { timestamp: '1700000000000' } },
    expectSend(r, text, to) {
      expect(r.json).toEqual({ message: text, number: '+4915100000000', recipients: [to] });
    },
    maxChars: 2000,
    rejected: { response: { status: 400, body: { error: 'Failed to send message due to an unregistered user\n' } }, text: 'unregistered user' },
    // no Retry-After: signal-cli reports Signal's rate limit in the text (and challenge tokens)
    rateLimited: { response: { status: 429, body: { error: 'Failed to send message due to rate limiting', challenge_tokens: ['t1'] } }, retryAfterMs: undefined },
    // signal-cli-rest-api: 400 `{error}` with signal-cli's text (src/api/api.go)
    documented: [
      { response: { status: 400, body: { error: 'Failed to send message due to an unregistered user' } }, kind: 'permanent', reason: 'unregistered user' },
      { response: { status: 400, body: { error: 'Invalid group id' } }, kind: 'permanent', reason: 'Invalid group id' },
      { response: { status: 400, body: { error: 'Failed to send message: Network failure (java.net.SocketTimeoutException: timeout)' } }, kind: 'transient', reason: 'Network failure' },
      { response: { status: 400, body: { error: 'Failed to send message due to rate limiting' } }, kind: 'transient', reason: 'rate limiting' },
    ],
  },
  {
    // BlueBubbles server, packages/server/src/server/api/http/api/v1/routers/messageRouter.ts (sendText)
    // and responses/success.ts, errors.ts (https://github.com/BlueBubblesApp/bluebubbles-server):
    // 200 `{status, message:"Message sent!", data}`, errors `{status, message, error:{type, message}}`
    plugin: as(imessagePlugin),
    config: (url) => ({ url, password: IMESSAGE_PASSWORD }),
    secrets: [IMESSAGE_PASSWORD],
    to: 'iMessage;-;+15551234567',
    isSend: (r) => r.path === '/api/v1/message/text',
    ok: { body: { status: 200, message: 'Message sent!', data: { guid: 'G1', text: 'x', isFromMe: true, error: 0 } } },
    expectSend(r, text, to) {
      expect(r.query.password).toBe(IMESSAGE_PASSWORD);
      expect(r.json).toMatchObject({ chatGuid: to, message: text });
      expect(r.json.tempGuid).toMatch(/^[0-9a-f-]{36}/);
    },
    maxChars: 20000,
    rejected: { response: { status: 400, body: { status: 400, message: 'Bad request', error: { type: 'Validation Error', message: 'Chat does not exist' } } }, text: 'Chat does not exist' },
    // BlueBubbles itself has no rate limit; its proxy (Cloudflare, ngrok) answers 429 with Retry-After
    rateLimited: { response: { status: 429, headers: { 'retry-after': '2' }, body: {} }, retryAfterMs: 2000 },
    // BlueBubbles server errors.ts: `{status, message, error:{type, message}}`
    documented: [
      { response: { status: 400, body: { status: 400, message: 'Bad request', error: { type: 'Validation Error', message: 'Chat does not exist' } } }, kind: 'permanent', reason: 'Chat does not exist' },
      { response: { status: 500, body: { status: 500, message: 'Failed to send message!', error: { type: 'iMessage Error', message: 'Message failed to send' }, data: { guid: 'G2', error: 22 } } }, kind: 'permanent', reason: 'Message failed to send' },
      { response: { status: 500, body: { status: 500, message: 'Failed to send message!', error: { type: 'iMessage Error', message: 'AppleScript timed out' } } }, kind: 'transient', reason: 'AppleScript timed out' },
    ],
  },
  {
    // Bot Connector: https://learn.microsoft.com/azure/bot-service/rest-api/bot-framework-rest-connector-api-reference
    // (201 `{id}`, ErrorResponse `{error:{code, message}}`); 429 with Retry-After per
    // https://learn.microsoft.com/microsoftteams/platform/bots/how-to/rate-limit
    plugin: as(msteamsPlugin),
    config: (url) => ({ appId: 'app-id-1', appPassword: TEAMS_PASSWORD, serviceUrl: `${url}/teams`, tokenUrl: `${url}/token` }),
    secrets: [TEAMS_PASSWORD, TEAMS_ACCESS_TOKEN],
    to: '19:abc123@thread.tacv2',
    isSend: (r) => r.path.startsWith('/teams/'),
    other: (r) => (r.path === '/token' ? { body: { token_type: 'Bearer', expires_in: 3599, access_token: TEAMS_ACCESS_TOKEN } } : { status: 404 }),
    ok: { status: 201, body: { id: 'activity-1' } },
    expectSend(r, text, to) {
      expect(r.path).toBe(`/teams/v3/conversations/${encodeURIComponent(to)}/activities`);
      expect(r.headers.authorization).toBe(`Bearer ${TEAMS_ACCESS_TOKEN}`);
      expect(r.json).toEqual({ type: 'message', text });
    },
    maxChars: 28000,
    rejected: { response: { status: 403, body: { error: { code: 'BotNotInConversationRoster', message: 'The bot is not part of the conversation roster.' } } }, text: 'not part of the conversation roster' },
    rateLimited: { response: { status: 429, headers: { 'retry-after': '5' }, body: {} }, retryAfterMs: 5000 },
    // https://learn.microsoft.com/microsoftteams/platform/bots/build-conversational-capability#status-codes-from-bot-conversational-apis
    documented: [
      { response: { status: 403, body: { error: { code: 'ConversationBlockedByUser', message: 'User blocked the conversation with the bot.' } } }, kind: 'permanent', reason: 'ConversationBlockedByUser' },
      { response: { status: 403, body: { error: { code: 'BotNotInConversationRoster', message: 'The bot is not part of the conversation roster.' } } }, kind: 'permanent', reason: 'BotNotInConversationRoster' },
      { response: { status: 404, body: { error: { code: 'ConversationNotFound', message: 'Conversation not found.' } } }, kind: 'permanent', reason: 'ConversationNotFound' },
      { response: { status: 400, body: { error: { code: 'BadArgument', message: 'Invalid activity.' } } }, kind: 'permanent', reason: 'BadArgument' },
      { response: { status: 412, body: { error: { code: 'PreconditionFailed', message: 'Precondition failed, please try again.' } } }, kind: 'transient', reason: 'PreconditionFailed' },
      { response: { status: 502, body: { error: { code: 'ServiceError', message: 'Bad gateway.' } } }, kind: 'transient', reason: 'ServiceError' },
    ],
  },
  {
    // https://developers.facebook.com/docs/whatsapp/cloud-api/reference/messages (200 `{messaging_product,
    // contacts, messages:[{id}]}`); https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes:
    // Graph errors `{error:{message, type, code, error_data, fbtrace_id}}`, throughput limits as code 130429
    plugin: as(whatsappPlugin),
    config: (url) => ({ accessToken: WHATSAPP_TOKEN, phoneNumberId: '1098765432', baseUrl: url }),
    secrets: [WHATSAPP_TOKEN],
    to: '4915112345678',
    isSend: (r) => r.path === '/1098765432/messages',
    ok: { body: { messaging_product: 'whatsapp', contacts: [{ input: '4915112345678', wa_id: '4915112345678' }], messages: [{ id: 'wamid.X' }] } },
    expectSend(r, text, to) {
      expect(r.headers.authorization).toBe(`Bearer ${WHATSAPP_TOKEN}`);
      expect(r.json).toMatchObject({ messaging_product: 'whatsapp', to, type: 'text', text: { body: text } });
    },
    maxChars: 4096,
    rejected: {
      response: { status: 400, body: { error: { message: '(#131030) Recipient phone number not in allowed list', type: 'OAuthException', code: 131030, fbtrace_id: 'A' } } },
      text: 'Recipient phone number not in allowed list',
    },
    // Graph answers a throughput limit with 400 and code 130429, no Retry-After
    rateLimited: {
      response: {
        status: 400,
        body: { error: { message: '(#130429) Rate limit hit', type: 'OAuthException', code: 130429, error_data: { messaging_product: 'whatsapp', details: 'Cloud API message throughput has been reached.' }, fbtrace_id: 'B' } },
      },
      retryAfterMs: undefined,
    },
    // https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes
    documented: [
      { response: { status: 401, body: { error: { message: '(#190) Access token has expired', type: 'OAuthException', code: 190, fbtrace_id: 'F' } } }, kind: 'permanent', reason: '190 Access token has expired' },
      { response: { status: 400, body: { error: { message: '(#131030) Recipient phone number not in allowed list', type: 'OAuthException', code: 131030, fbtrace_id: 'F' } } }, kind: 'permanent', reason: '131030 Recipient phone number not in allowed list' },
      { response: { status: 400, body: { error: { message: '(#131047) Re-engagement message', type: 'OAuthException', code: 131047, fbtrace_id: 'F' } } }, kind: 'permanent', reason: '131047 Re-engagement message' },
      { response: { status: 400, body: { error: { message: '(#131026) Message undeliverable', type: 'OAuthException', code: 131026, fbtrace_id: 'F' } } }, kind: 'permanent', reason: '131026 Message undeliverable' },
      { response: { status: 400, body: { error: { message: '(#130429) Rate limit hit', type: 'OAuthException', code: 130429, fbtrace_id: 'F' } } }, kind: 'transient', reason: '130429 Rate limit hit' },
      { response: { status: 503, body: { error: { message: '(#131016) Service unavailable', type: 'OAuthException', code: 131016, fbtrace_id: 'F' } } }, kind: 'transient', reason: '131016 Service unavailable' },
    ],
  },
  {
    // Standard Webhooks (https://www.standardwebhooks.com/, spec.md): any 2xx accepts
    plugin: as(webhookPlugin),
    config: (url) => ({ url: `${url}/inbox`, secret: WEBHOOK_SECRET }),
    secrets: [WEBHOOK_SECRET],
    to: 'ops-team',
    isSend: (r) => r.path === '/inbox',
    ok: { status: 204, body: '' },
    expectSend(r, text, to) {
      expect(Object.keys(r.json).sort()).toEqual(['agent', 'createdAt', 'runId', 'sessionKey', 'text', 'to']);
      expect(r.json).toMatchObject({ text, to, agent: 'main' });
      expect(r.json.createdAt).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(r.headers['webhook-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(r.headers['webhook-timestamp']).toMatch(/^\d+$/);
      expect(r.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    },
    rejected: { response: { status: 422, body: { error: 'unknown recipient ops-team' } }, text: 'unknown recipient ops-team' },
    rateLimited: { response: { status: 429, headers: { 'retry-after': '9' }, body: {} }, retryAfterMs: 9000 },
    // 2xx accepts; 408, 429 and 5xx are retried, any other 4xx refuses this delivery for good
    documented: [
      { response: { status: 410, body: { error: 'endpoint disabled' } }, kind: 'permanent', reason: 'endpoint disabled' },
      { response: { status: 404, body: '' }, kind: 'permanent', reason: 'Not Found' },
      { response: { status: 408, body: '' }, kind: 'transient', reason: 'Request Timeout' },
      { response: { status: 500, body: { error: 'database down' } }, kind: 'transient', reason: 'database down' },
    ],
  },
];
