import { definePlugin } from '../../src/plugins/sdk.js';
import { gmailConfigSchema } from './config.js';

/** The gmail preset: new mail becomes a `hook:gmail:<messageId>` agent run. */
export const gmailPlugin = definePlugin({
  id: 'gmail',
  roles: ['preset'],
  summary: 'Gmail: new mail in a watched inbox becomes an agent run (preset `gmail`).',
  configKey: 'hooks.gmail',
  config: gmailConfigSchema,
  create: () => ({}),
});
