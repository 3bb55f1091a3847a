import { definePlugin } from '../../src/plugin-sdk/sdk.js';
import { imessageConfigSchema } from './config.js';
import { imessageChannel } from './channel.js';

export const imessagePlugin = definePlugin({
  id: 'imessage',
  roles: ['channel'],
  aliases: ['imsg'],
  summary: 'iMessage: sends replies through a BlueBubbles server (`POST /api/v1/message/text`). Alias `imsg`.',
  config: imessageConfigSchema,
  docs: [
    '`to` is a BlueBubbles chat guid: `iMessage;-;+15551234567` or `iMessage;-;someone@icloud.com` for one person, `iMessage;+;chat123456789` for a group (GET `/api/v1/chat/query` lists them).',
    'Token: install [BlueBubbles Server](https://bluebubbles.app) on a Mac signed in to Messages, set a server password in its settings, and reach it over a private network or its proxy URL. Keep the password secret: it is the only key.',
    'Each part carries `tempGuid` = the delivery id (`<id>-<n>` per part). BlueBubbles sends synchronously: a 200 means Messages took the part. While a send is still running it refuses the same `tempGuid` (400 "already queued"): herald waits and asks again rather than counting it as sent. A retry first looks in the chat (`/api/v1/message/query`) for a message from you with the part\'s text made since the delivery was queued, and sends only when there is none, so a lost answer neither loses nor repeats a part. An `iMessage Error` that carries the failed message is final. Messages over 20000 characters are split.',
  ].join('\n\n'),
  guarantees: {
    threads: "a message guid \u2192 `selectedMessageGuid` (the first part replies to it) with `method: private-api`; ignored with `apple-script`, which cannot reply",
    idempotency: "a retry looks in the chat for the part before sending it again; `tempGuid` stops a second send while the first is still running",
    splitAbove: "20000 characters",
    escaping: "plain text",
  },
  create: ({ config }) => ({ channel: config ? imessageChannel(config) : undefined }),
});
