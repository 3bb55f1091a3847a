import { definePlugin } from '../../src/plugin-sdk/sdk.js';
import { mattermostConfigSchema } from './config.js';
import { mattermostChannel } from './channel.js';

export const mattermostPlugin = definePlugin({
  id: 'mattermost',
  roles: ['channel'],
  summary: 'Mattermost: posts replies as a bot (REST `POST /api/v4/posts`).',
  config: mattermostConfigSchema,
  docs: [
    '`to` is a channel id (26 characters, e.g. `4xp9fdt77pncbef59f4k1qe83o`): *View Info* on the channel shows it. For a direct message use the id of the DM channel between the bot and the user.',
    'Token: *System Console > Integrations > Bot Accounts*, enable bot accounts, *Add Bot Account*, copy the token; add the bot to the team and channel. A personal access token works too.',
    'Each post carries `pending_post_id` = the delivery id (`<id>-<n>` per part): Mattermost answers a repeat within 30 seconds with the post it already made instead of a copy (and a 500, retried, while the first is still being saved). Messages are split at the server\'s own limit (`MaxPostSize` of its client config, 16383 characters on current servers, 4000 on legacy ones), counted in characters (runes) as the server counts them.',
  ].join('\n\n'),
  guarantees: {
    threads: "the root post id \u2192 `root_id`: every part is a reply in that thread",
    idempotency: "`pending_post_id`: a repeat shortly after the first is answered with the post already made",
    splitAbove: "the server's `MaxPostSize` (16383 on current servers, 4000 legacy), counted in runes",
    escaping: "Markdown is rendered; `@channel`/`@all` in a reply notify as in any post",
  },
  create: ({ config }) => ({ channel: config ? mattermostChannel(config) : undefined }),
});
