import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { PluginCommand, PluginSource } from '../plugin-sdk/sdk.js';
import { endQuietlyOnClosedStdout, processIo, type CliIo } from './io/cli-io.js';
import type { CommandSpec, OptionSpec } from './command-spec.js';
import { commands } from './commands.js';
import { configPathFrom } from './io/config-path.js';
import { commandHelp, overallHelp } from './help.js';
import { didYouMean, nearest } from './io/nearest.js';
import { PACKAGE_ROOT } from '../utils/install-layout.js';

/**
 * Dispatches `herald <words> [options]`. Only this file, the command table and the help are
 * loaded up front: a command's module is imported once it is the one asked for, and the
 * plugins only when a plugin command (or the full list) is needed.
 */
export async function main(
  argv: string[],
  builtins: PluginSource[] | (() => Promise<PluginSource[]>),
  io: CliIo = processIo,
): Promise<number> {
  // the entry point hands the built-in plugins in (src/ never imports plugins/), as a list or, to
  // keep `--help` from loading them, as a loader called only when a command needs them
  let loaded: Promise<PluginSource[]> | undefined;
  const listPlugins = () => (loaded ??= typeof builtins === 'function' ? builtins() : Promise.resolve(builtins));
  const first = argv[0];
  if (io === processIo && first !== 'serve') endQuietlyOnClosedStdout();
  if (first === '--version' || first === '-v' || first === 'version') {
    io.out(`herald ${version()}`);
    return 0;
  }
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    const table = { ...commands, ...(await pluginCommands(listPlugins, io)) };
    const asked = first === 'help' ? argv.slice(1).join(' ') : '';
    if (asked && table[asked]) {
      io.out(commandHelp(asked, table[asked]));
      return 0;
    }
    if (asked) return unknownCommand(argv.slice(1), table, io, true);
    io.out(overallHelp(table, version()));
    return first === undefined ? 2 : 0;
  }
  if (first.startsWith('-')) {
    io.err(`herald: unknown option "${first}"${didYouMean(first, ['--help', '--version'])}; a command comes first (herald --help lists them)`);
    return 2;
  }

  let table: Record<string, CommandSpec> = commands;
  let words = matchWords(argv, table);
  if (!words) {
    table = { ...commands, ...(await pluginCommands(listPlugins, io)) };
    words = matchWords(argv, table);
  }
  if (!words) return unknownCommand(argv, table, io, argv.includes('--help') || argv.includes('-h'));
  const spec = table[words]!;
  const rest = argv.slice(words.split(' ').length);
  const end = rest.indexOf('--');
  if ((end < 0 ? rest : rest.slice(0, end)).some((a) => a === '--help' || a === '-h')) {
    io.out(commandHelp(words, spec));
    return 0;
  }
  if (!spec.ownOptions) {
    const fault = optionFault(rest, spec);
    if (fault) {
      io.err(`herald ${words}: ${fault}`);
      io.err(`usage: herald ${words}${spec.usage ? ` ${spec.usage}` : ''} [options] (herald ${words} --help for the options)`);
      return 2;
    }
  }
  try {
    const run = await spec.load();
    return await run(rest, io, spec.plugin || spec.gatewayOnly ? [] : await listPlugins());
  } catch (error) {
    const { ConfigError } = await import('../errors.js');
    if (error instanceof ConfigError) {
      io.err('herald: the configuration has faults:');
      for (const fault of error.faults) io.err(`  ${fault}`);
    } else {
      io.err(`herald: ${(error as Error).message}`);
    }
    return 1;
  }
}

/** the longest command whose words start argv */
function matchWords(argv: string[], table: Record<string, CommandSpec>): string | undefined {
  return Object.keys(table)
    .filter((name) => name.split(' ').every((w, i) => argv[i] === w))
    .sort((a, b) => b.split(' ').length - a.split(' ').length)[0];
}

/** `herald keys` lists the keys commands (`herald keys --help` too, as the help asked for); `herald sevre` suggests `serve` */
function unknownCommand(argv: string[], table: Record<string, CommandSpec>, io: CliIo, help = false): number {
  const words = argv.filter((a) => !a.startsWith('-'));
  for (let n = words.length; n > 0; n--) {
    const prefix = words.slice(0, n).join(' ');
    const group = Object.keys(table).filter((name) => name.startsWith(`${prefix} `));
    if (group.length === 0) continue;
    const next = words[n];
    const usage = `usage:\n${group.map((name) => `  herald ${name.padEnd(24)} ${table[name]!.summary}`).join('\n')}`;
    if (next === undefined && help) {
      io.out(`${usage}\n\nherald ${prefix} <subcommand> --help shows its options.`);
      return 0;
    }
    if (next !== undefined) {
      const match = nearest(next, group.map((name) => name.split(' ')[n]!));
      io.err(`herald: unknown command "${prefix} ${next}"${match ? ` (did you mean "${prefix} ${match}"?)` : ''}`);
    } else {
      io.err(`herald ${prefix}: a subcommand is needed`);
    }
    io.err(usage);
    return 2;
  }
  const asked = words.join(' ') || argv.join(' ');
  const names = new Set(Object.keys(table).flatMap((name) => [name, name.split(' ')[0]!]));
  io.err(`herald: unknown command "${asked}"${didYouMean(words[0] ?? asked, names)}; herald --help lists the commands`);
  return 2;
}

/** the fault of argv against a command's options, with the nearest valid option named */
function optionFault(argv: string[], spec: CommandSpec): string | undefined {
  try {
    const parseOptions = Object.fromEntries(
      Object.entries(spec.options).map(([name, o]) => [name, { type: o.type, ...(o.short && { short: o.short }), ...(o.multiple && { multiple: true }) }]),
    );
    parseArgs({ args: argv, options: parseOptions, allowPositionals: spec.positionals === true, strict: true });
    return undefined;
  } catch (error) {
    const message = (error as Error).message;
    const unknown = /Unknown option '([^']+)'/.exec(message)?.[1];
    if (unknown) {
      const names = Object.entries(spec.options).flatMap(([name, o]) => [`--${name}`, ...(o.short ? [`-${o.short}`] : [])]);
      return `unknown option "${unknown}"${didYouMean(unknown, names)}`;
    }
    const positional = /Unexpected argument '([^']+)'/.exec(message)?.[1];
    if (positional) return `unexpected argument "${positional}" (this command takes options only)`;
    return message.split('. ')[0]!;
  }
}

/** the plugins' commands, as specs: loaded only when asked for */
async function pluginCommands(load: () => Promise<PluginSource[]>, io: CliIo): Promise<Record<string, CommandSpec>> {
  const table: Record<string, CommandSpec> = {};
  const { loadPlugins } = await import('../plugin-host/plugin-listing.js');
  for (const plugin of await loadPlugins(await load())) {
    for (const command of plugin.commands ?? []) table[command.path.join(' ')] = pluginCommandSpec(command, plugin.id, io, load);
  }
  return table;
}

function pluginCommandSpec(command: PluginCommand, pluginId: string, io: CliIo, listPlugins: () => Promise<PluginSource[]>): CommandSpec {
  const options = Object.fromEntries(
    Object.entries(command.options ?? {}).map(([name, o]) => [name, { type: o.type, short: o.short, multiple: o.multiple, arg: o.arg, help: o.help ?? '' } satisfies OptionSpec]),
  );
  return {
    summary: command.summary,
    usage: command.usage,
    details: command.details,
    options,
    positionals: command.positionals,
    ownOptions: command.options === undefined,
    plugin: true,
    load: async () => async (argv) => {
      const flag = argv.findIndex((a) => a === '--config' || a === '-c');
      const configPath = configPathFrom(flag >= 0 ? argv[flag + 1] : undefined);
      const { openCommandHost } = await import('../plugin-host/command-host.js');
      const builtins = await listPlugins();
      return command.run(argv, { configPath, stdout: io.stdout, stderr: io.stderr, openHost: () => openCommandHost(pluginId, configPath, builtins) });
    },
  };
}

let cachedVersion: string | undefined;
function version(): string {
  cachedVersion ??= (JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  return cachedVersion;
}
