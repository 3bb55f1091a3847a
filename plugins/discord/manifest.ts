import { z } from 'zod';
import { definePlugin } from '../../src/plugins/sdk.js';
import { discordChannel } from './channel.js';

export const discordConfigSchema = z
  .object({
    botToken: z.string().min(1).describe('Bot token from the Discord developer portal (sent as `Authorization: Bot <token>`).'),
    baseUrl: z.string().url().default('https://discord.com/api/v10').describe('REST API base URL (a fake in tests).'),
  })
  .strict();

export type DiscordConfig = z.output<typeof discordConfigSchema>;

export const discordPlugin = definePlugin({
  id: 'discord',
  roles: ['channel'],
  summary: 'Discord: posts replies as a bot (REST `POST /channels/{id}/messages`).',
  config: discordConfigSchema,
  docs: [
    '`to` is a channel id (a snowflake like `1234567890123456789`; turn on Developer Mode, right-click the channel, *Copy Channel ID*). A DM channel id works too.',
    'Token: <https://discord.com/developers/applications>, *New Application*, *Bot*, *Reset Token*, copy it. Invite the bot with the `bot` scope and the *Send Messages* permission.',
    'Messages over 2000 characters are split. Each part carries a `nonce` with `enforce_nonce`, so Discord drops a repeat of a part it already accepted. A 429 waits for Discord\'s `retry_after`. Requests carry the `User-Agent: DiscordBot (...)` Discord requires.',
  ].join('\n\n'),
  create: ({ config }) => ({ channel: config ? discordChannel(config) : undefined }),
});
