import { definePlugin } from '../../src/plugin-sdk/sdk.js';
import { discordConfigSchema } from './config.js';
import { discordChannel } from './channel.js';
import { discordRecipient } from './recipient.js';
import { discordPreset } from './preset.js';

export const discordPlugin = definePlugin({
  id: 'discord',
  roles: ['channel', 'preset'],
  summary: 'Discord: posts replies as a bot (REST `POST /channels/{id}/messages`); preset `discord` for an application\'s interactions endpoint.',
  preset: discordPreset,
  config: discordConfigSchema,
  recipient: discordRecipient,
  docs: [
    '`to` is a channel id (a snowflake like `1234567890123456789`; turn on Developer Mode, right-click the channel, *Copy Channel ID*). A DM channel id works too.',
    'Token: <https://discord.com/developers/applications>, *New Application*, *Bot*, *Reset Token*, copy it. Invite the bot with the `bot` scope and the *Send Messages* permission.',
    'Messages over 2000 characters are split. Each part carries a `nonce` with `enforce_nonce`: Discord checks it for uniqueness only "in the past few minutes" (its own words), so a retry within minutes of a lost answer returns the message already made, while a retry after a longer outage may post a part twice. A 429 waits for Discord\'s `retry_after`. Requests carry the `User-Agent: DiscordBot (...)` Discord requires.',
    'Interactions: the discord preset answers a slash command it deferred by editing the original response (`PATCH /webhooks/<application id>/<token>/messages/@original`, a longer reply continues in follow-up messages) and a button it deferred with a follow-up message; the interaction\'s token authenticates, so `channels.discord: {}` without a bot token is enough. Discord keeps a token valid for 15 minutes: past that the delivery fails at once and is not retried.',
    'Mentions: every message carries `allowed_mentions` (default `{parse: []}`), so `@everyone`, `@here`, role and user mentions in a reply ping nobody; set `allowedMentions` to allow some.',
  ].join('\n\n'),
  guarantees: {
    threads: "a message id \u2192 `message_reference` (the first part replies to it; sent even if it is gone). A Discord thread is a channel: give its id as `to`",
    idempotency: "`nonce` + `enforce_nonce`: Discord returns the message already made for a repeat \"in the past few minutes\"; a retry after a longer outage may repeat a part",
    splitAbove: "2000 characters",
    escaping: "`allowed_mentions: {parse: []}` (configurable): `@everyone`, `@here`, role and user mentions ping nobody; Markdown is rendered",
  },
  create: ({ config }) => ({ channel: config ? discordChannel(config) : undefined }),
});
