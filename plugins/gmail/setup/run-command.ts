import { parseArgs } from 'node:util';
import type { PluginCommandContext } from '../../../src/plugin-sdk/sdk.js';
import type { GmailConfig } from '../config.js';
import { watcherFromConfig } from '../watcher/watcher-from-config.js';

/** `herald webhooks gmail run`: the watcher alone, until SIGINT/SIGTERM. */
export async function runCommand(argv: string[], ctx: PluginCommandContext): Promise<number> {
  parseArgs({ args: argv, options: { config: { type: 'string', short: 'c' } }, strict: true });
  if (!ctx.openHost) throw new Error('this herald cannot run plugin services from the CLI');
  const opened = await ctx.openHost();
  try {
    const watcher = watcherFromConfig(opened.config as GmailConfig, opened.host.config, opened.host.state, opened.logger);
    await watcher.start();
    ctx.stdout.write(`gmail watcher for ${(opened.config as GmailConfig).account}: push endpoint ${watcher.url}\n`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await watcher.stop();
    return 0;
  } finally {
    await opened.close();
  }
}
