import type { PluginDefinition } from '../src/plugins/sdk.js';
import { gmailPlugin } from './gmail/manifest.js';
import { telegramPlugin } from './telegram/manifest.js';
import { slackPlugin } from './slack/manifest.js';
import { discordPlugin } from './discord/manifest.js';
import { mattermostPlugin } from './mattermost/manifest.js';
import { signalPlugin } from './signal/manifest.js';
import { imessagePlugin } from './imessage/manifest.js';
import { msteamsPlugin } from './msteams/manifest.js';
import { whatsappPlugin } from './whatsapp/manifest.js';
import { webhookPlugin } from './webhook/manifest.js';

/** The explicit list of built-in plugins. A plugin is one folder; add its manifest here. */
export const builtinPlugins: PluginDefinition[] = [
  gmailPlugin,
  telegramPlugin,
  slackPlugin,
  discordPlugin,
  mattermostPlugin,
  signalPlugin,
  imessagePlugin,
  msteamsPlugin,
  whatsappPlugin,
  webhookPlugin,
];
