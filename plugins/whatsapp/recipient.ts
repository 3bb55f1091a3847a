import type { PluginDefinition } from '../../src/plugin-sdk/sdk.js';

/** a WhatsApp number: checked when a hook is accepted, before the plugin is loaded (plugins/listings.ts) */
export const whatsappRecipient: PluginDefinition['recipient'] = { pattern: /^\+?\d{5,20}$/, description: 'a phone number in international format, digits only' };
