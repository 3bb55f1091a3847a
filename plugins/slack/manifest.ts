import { definePlugin } from '../../src/plugin-sdk/sdk.js';
import { slackConfigSchema } from './config.js';
import { slackChannel } from './channel.js';
import { slackPreset } from './preset.js';

export const slackPlugin = definePlugin({
  id: 'slack',
  roles: ['channel', 'preset'],
  summary: 'Slack: posts replies as a bot (Web API `chat.postMessage`); preset `slack` for a Slack app\'s events, slash commands and interactivity.',
  preset: slackPreset,
  config: slackConfigSchema,
  docs: [
    '`to` is a conversation id: a channel (`C0123456789`), a private channel or group DM (`G...`), or a user id (`U...`) for a direct message from the bot. Channel names like `#general` also work but ids survive renames.',
    'Token: create an app at <https://api.slack.com/apps>, add the `chat:write` bot scope under *OAuth & Permissions*, install it to the workspace and copy the *Bot User OAuth Token*. Invite the bot to the channel (`/invite @yourbot`).',
    'A response with `ok: false` is a failure (`channel_not_found`, `not_in_channel`, ... fail at once). Messages over 4000 characters are split.',
  ].join('\n\n'),
  guarantees: {
    threads: "the parent message's `ts` \u2192 `thread_ts`: every part is a reply in that thread (e.g. `{{ event.thread_ts ? event.thread_ts : event.ts }}`)",
    idempotency: "none: `chat.postMessage` has no idempotency key",
    splitAbove: "4000 characters (Slack's advice; it truncates at 40000)",
    escaping: "`&` `<` `>` sent as `&amp;` `&lt;` `&gt;` (Slack's formatting rules), so `<!channel>`, `<!here>`, `<@U\u2026>` in a reply show as text and notify nobody",
  },
  create: ({ config }) => ({ channel: config ? slackChannel(config) : undefined }),
});
