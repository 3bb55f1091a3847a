import { definePlugin } from '../../src/plugin-sdk/sdk.js';
import { msteamsConfigSchema } from './config.js';
import { msteamsChannel } from './channel.js';
import { msteamsRecipient } from './recipient.js';

export const msteamsPlugin = definePlugin({
  id: 'msteams',
  roles: ['channel'],
  aliases: ['teams'],
  summary: 'Microsoft Teams: posts replies as a Bot Framework bot (Bot Connector `POST /v3/conversations/{id}/activities`). Alias `teams`.',
  config: msteamsConfigSchema,
  recipient: msteamsRecipient,
  docs: [
    '`to` is a Bot Framework conversation id, e.g. `19:abc123...@thread.tacv2` for a channel or `a:1xyz...` for a personal chat; the bot learns it from the `conversation.id` of any activity it receives, so the user or channel must have talked to (or installed) the bot first.',
    'Token: create an *Azure Bot* resource (or register in the Teams Developer Portal), note the *Microsoft App ID*, create a client secret under *Certificates & secrets* (that is `appPassword`), enable the Teams channel and install the app in Teams. herald fetches a client-credentials token and caches it until it expires.',
    'Messages over 28000 characters are split. The Bot Connector has no idempotency key: a retry after a lost response may repeat a part.',
  ].join('\n\n'),
  guarantees: {
    threads: "the thread's first activity id \u2192 the Bot Connector's reply to activity (`/activities/{id}`, `replyToId`); in a channel (`\u2026@thread.\u2026`) the conversation becomes `<to>;messageid=<id>`",
    idempotency: "none: the Bot Connector has no idempotency key",
    splitAbove: "28000 UTF-16 characters (56 KB; Teams takes about 100 KB)",
    escaping: "the text is Markdown (Teams' default `textFormat`)",
  },
  create: ({ config }) => ({ channel: config ? msteamsChannel(config) : undefined }),
});
