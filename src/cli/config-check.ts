import { parseArgs } from 'node:util';
import { loadConfigFile } from '../plugin-host/load-config.js';
import type { PluginDefinition } from '../plugins/sdk.js';
import { ConfigError } from '../errors.js';
import { configPathFrom } from './config-path.js';
import type { CliIo } from './cli-io.js';
import { resolveMappings } from '../mappings/resolve-mappings.js';

/** `herald config check [--config FILE]`: every fault of a config file, or "ok". */
export async function configCheckCommand(argv: string[], io: CliIo, builtins: PluginDefinition[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { config: { type: 'string', short: 'c' } } });
  const file = configPathFrom(values.config);
  try {
    const loaded = await loadConfigFile(file, { builtins });
    const warnings = [...loaded.warnings];
    await resolveMappings(loaded, { config: loaded.config, channelNames: loaded.plugins.channelNames(), warnings });
    io.out(`${file}: ok`);
    // loads and starts, but each of these wants a look (the line names the key)
    for (const warning of warnings) io.out(`  warning: ${warning}`);
    return 0;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.err(`${file}: ${error.faults.length} fault${error.faults.length === 1 ? '' : 's'}`);
    for (const fault of error.faults) io.err(`  ${fault}`);
    return 1;
  }
}
