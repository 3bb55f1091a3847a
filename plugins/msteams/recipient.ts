import type { PluginDefinition } from '../../src/plugin-sdk/sdk.js';

/** a Teams conversation: checked when a hook is accepted, before the plugin is loaded (plugins/listings.ts) */
export const msteamsRecipient: PluginDefinition['recipient'] = { pattern: /^[^\/\\?#\s]+$/, description: 'a conversation id such as 19:abc@thread.tacv2 (no slash, backslash, ?, # or space)' };
