import { builtinListings, builtinPlugins } from '../../plugins/index.js';
import { main as heraldMain } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/io/cli-io.js';
import * as host from '../../src/plugin-host/load-config.js';

/**
 * herald's entry points with the built-in plugins handed in, as bin/herald.mjs does (their
 * listings, each loaded once used): src/ never imports plugins/, so a test that wants the real
 * plugins passes the list like the entry point. `builtinPlugins` is every one loaded.
 */
export { builtinListings, builtinPlugins };

export function main(argv: string[], io?: CliIo): Promise<number> {
  return heraldMain(argv, builtinListings, io);
}

export function loadConfigFile(file: string, options: Partial<host.LoadConfigOptions> = {}): Promise<host.LoadedConfig> {
  return host.loadConfigFile(file, { builtins: builtinListings, ...options });
}

export function loadConfigValue(raw: unknown, file: string, options: Partial<host.LoadConfigOptions> = {}): Promise<host.LoadedConfig> {
  return host.loadConfigValue(raw, file, { builtins: builtinListings, ...options });
}
