import type { PluginDefinition } from '../../src/plugin-sdk/sdk.js';

/** a Telegram chat: checked when a hook is accepted, before the plugin is loaded (plugins/listings.ts) */
export const telegramRecipient: PluginDefinition['recipient'] = { pattern: /^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{3,31})$/, description: 'a numeric chat id (negative for groups) or @channelusername' };
