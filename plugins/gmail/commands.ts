import type { PluginCommand } from '../../src/plugin-sdk/sdk.js';
import { SETUP_USAGE, setupOptionSpec } from './setup/setup-options.js';

const { help: _help, ...setupOptions } = setupOptionSpec;

/** `herald webhooks gmail setup|run`; the modules that do the work load only when one runs */
export const gmailCommands: PluginCommand[] = [
  {
    path: ['webhooks', 'gmail', 'setup'],
    summary: 'create the Pub/Sub topic and push subscription, start the Gmail watch, write hooks.gmail',
    usage: '--account ADDRESS --project GCP_PROJECT',
    // the option list with its defaults, as the setup usage text says it
    details: SETUP_USAGE.split('\n').slice(2).join('\n').trimEnd(),
    options: setupOptions,
    run: async (argv, ctx) => (await import('./setup/setup-command.js')).setupCommand(argv, ctx),
  },
  {
    path: ['webhooks', 'gmail', 'run'],
    summary: 'run the Gmail watcher alone (serve runs it too)',
    options: { config: { type: 'string', short: 'c', arg: 'FILE', help: 'the config file (default: $HERALD_CONFIG, else ./herald.json5)' } },
    details: 'Runs until SIGINT/SIGTERM, with the hooks.gmail settings `webhooks gmail setup` wrote.',
    run: async (argv, ctx) => (await import('./setup/run-command.js')).runCommand(argv, ctx),
  },
];
