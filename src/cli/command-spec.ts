import type { PluginSource } from '../plugin-sdk/sdk.js';
import type { CliIo } from './io/cli-io.js';

/** One option as `node:util` parseArgs takes it, with what `--help` prints. */
export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  multiple?: boolean;
  /** the value's placeholder in help, e.g. FILE */
  arg?: string;
  help: string;
}

/** `builtins`: the built-in plugins, loaded by main only once a command runs */
export type CommandRun = (argv: string[], io: CliIo, builtins: PluginSource[]) => Promise<number>;

/**
 * A command as main.ts knows it before loading it: its words, help and options are plain data,
 * and `load` imports the module that runs it only when it is the command asked for, so
 * `herald --help` or `herald agents list` never loads the HTTP server or the model clients.
 */
export interface CommandSpec {
  summary: string;
  /** what follows the command words in the usage line, e.g. `<name> --payload FILE` */
  usage?: string;
  /** free text printed after the options */
  details?: string;
  options: Record<string, OptionSpec>;
  /** takes positional arguments (files, a hook name) */
  positionals?: boolean;
  /** the options are checked by the command itself (plugin commands that declare none) */
  ownOptions?: boolean;
  /** a plugin's command (it loads the plugins itself) */
  plugin?: boolean;
  /** talks only to the running gateway's admin API: the plugins are not loaded (admin/gateway-access.ts) */
  gatewayOnly?: boolean;
  load(): Promise<CommandRun>;
}

export const configOption: OptionSpec = {
  type: 'string',
  short: 'c',
  arg: 'FILE',
  help: 'the config file (default: $HERALD_CONFIG, else ./herald.json5)',
};
