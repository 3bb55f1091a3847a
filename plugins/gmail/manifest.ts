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
  // the watcher (Gmail and Pub/Sub clients, MIME decoding) loads only when serve starts one (an
  // account is set, as services.ts checks again), not for every CLI call or every start
  create: async (ctx) => (ctx.config?.account && ctx.host.config.hooks.enabled ? (await import('./services.js')).createGmailServices(ctx) : {}),
});
