import { definePlugin } from '../../src/plugin-sdk/sdk.js';
import { gmailConfigSchema } from './config.js';
import { gmailPreset } from './preset.js';
import { gmailCommands } from './commands.js';

/** The gmail preset: new mail becomes a `hook:gmail:<messageId>` agent run. */
export const gmailPlugin = definePlugin({
  id: 'gmail',
  // 'service': the watcher runs inside serve even when the preset mapping is not listed in hooks.presets
  roles: ['preset', 'service'],
  summary: 'Gmail: new mail in a watched inbox becomes an agent run (preset `gmail`).',
  configKey: 'hooks.gmail',
  config: gmailConfigSchema,
  preset: gmailPreset,
  commands: gmailCommands,
  // the watcher (Gmail and Pub/Sub clients, MIME decoding) loads only when serve starts it, not for every CLI call
  create: async (ctx) => (await import('./services.js')).createGmailServices(ctx),
});
