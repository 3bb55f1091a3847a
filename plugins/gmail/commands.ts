import type { PluginCommand } from '../../src/plugins/sdk.js';
import { runCommand } from './run-command.js';
import { setupCommand } from './setup-command.js';

/** `herald webhooks gmail setup|run` */
export const gmailCommands: PluginCommand[] = [
  {
    path: ['webhooks', 'gmail', 'setup'],
    summary: 'create the Pub/Sub topic and push subscription, start the Gmail watch, write hooks.gmail',
    run: (argv, ctx) => setupCommand(argv, ctx),
  },
  {
    path: ['webhooks', 'gmail', 'run'],
    summary: 'run the Gmail watcher alone (serve runs it too)',
    run: runCommand,
  },
];
