import { definePlugin } from '../../src/plugin-sdk/sdk.js';
import { telegramConfigSchema } from './config.js';
import { telegramChannel } from './channel.js';
import { telegramRecipient } from './recipient.js';

export const telegramPlugin = definePlugin({
  id: 'telegram',
  roles: ['channel'],
  summary: 'Telegram: sends replies through a bot (Bot API `sendMessage`).',
  config: telegramConfigSchema,
  recipient: telegramRecipient,
  docs: [
    '`to` is the chat id: a user id, a group id (negative, e.g. `-1001234567890`) or `@channelusername` for a public channel.',
    'Token: talk to [@BotFather](https://t.me/BotFather), `/newbot`, copy the token. The bot can write to a user only after that user pressed Start; add it to a group or make it a channel admin to post there. Your chat id: message the bot, then open `https://api.telegram.org/bot<token>/getUpdates`.',
    'Messages over 4096 characters are split on paragraph or line boundaries.',
  ].join('\n\n'),
  guarantees: {
    threads: "a forum topic id \u2192 `message_thread_id` (every part in the topic), or `reply:<message_id>` \u2192 `reply_parameters` (the first part replies, sent even if that message is gone); anything else fails the delivery",
    idempotency: "none: the Bot API has no idempotency key; a retry after a lost answer may repeat a part",
    splitAbove: "4096 UTF-16 characters",
    escaping: "plain text (no `parse_mode`): Markdown and HTML show as written; an `@username` in a reply still notifies that user in a group",
  },
  create: ({ config }) => ({ channel: config ? telegramChannel(config) : undefined }),
});
