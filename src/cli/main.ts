import { ConfigError } from '../errors.js';
import { openCommandHost } from '../plugin-host/command-host.js';
import type { PluginCommand, PluginDefinition } from '../plugins/sdk.js';
import { processIo, type CliIo } from './cli-io.js';
import { configCheckCommand } from './config-check.js';
import { configPathFrom } from './config-path.js';
import { hooksTestCommand } from './hooks-test.js';
import { docsCommand } from './docs.js';
import { serveCommand } from './serve.js';
import { agentsListCommand } from './agents-list.js';
import { keysCreateCommand, keysListCommand, keysRevokeCommand } from './keys.js';
import { knowledgeUploadCommand } from './knowledge-upload.js';

type Command = { summary: string; run: (argv: string[], io: CliIo, builtins: PluginDefinition[]) => Promise<number> };

/** herald's own commands, by their words; plugin commands (e.g. `webhooks gmail setup`) join them */
const commands: Record<string, Command> = {
  serve: { summary: 'start the gateway (writes a starter config on first run)', run: serveCommand },
  'config check': { summary: 'validate a config file and print every fault', run: configCheckCommand },
  'hooks test': { summary: 'dry run: print the action a hook request becomes (or run --fixtures FILE)', run: hooksTestCommand },
  'keys create': { summary: 'create a platform API key (--name N [--agents a,b]); prints it once', run: keysCreateCommand },
  'keys list': { summary: 'list platform API key names (never the keys)', run: keysListCommand },
  'keys revoke': { summary: 'delete a stored platform API key (--name N)', run: keysRevokeCommand },
  'agents list': { summary: 'list the digital employees, their model and document count', run: agentsListCommand },
  'knowledge upload': { summary: 'upload files to an agent knowledge base (--agent ID FILE...)', run: knowledgeUploadCommand },
  docs: { summary: "regenerate the README's generated blocks (--write, or --check for staleness)", run: docsCommand },
};

/**
 * Runs one command. `builtins` is the list of plugins/index.ts, handed in by the entry point
 * (bin/herald.mjs): src/ never reaches into plugins/ itself.
 */
export async function main(argv: string[], builtins: PluginDefinition[], io: CliIo = processIo): Promise<number> {
  const pluginCommands = pluginCommandTable(io, builtins);
  const table = { ...commands, ...pluginCommands };
  const words = Object.keys(table)
    .filter((name) => name.split(' ').every((w, i) => argv[i] === w))
    .sort((a, b) => b.split(' ').length - a.split(' ').length)[0];
  if (!words || argv[0] === '--help' || argv[0] === 'help') {
    io.out('usage: herald <command> [options]\n');
    for (const [name, command] of Object.entries(table)) io.out(`  ${name.padEnd(24)} ${command.summary}`);
    return words || argv.length === 0 || argv[0] === '--help' || argv[0] === 'help' ? 0 : 2;
  }
  try {
    return await table[words]!.run(argv.slice(words.split(' ').length), io, builtins);
  } catch (error) {
    if (error instanceof ConfigError) {
      io.err('herald: the configuration has faults:');
      for (const fault of error.faults) io.err(`  ${fault}`);
    } else {
      io.err(`herald: ${(error as Error).message}`);
    }
    return 1;
  }
}

function pluginCommandTable(io: CliIo, builtins: PluginDefinition[]): Record<string, Command> {
  const table: Record<string, Command> = {};
  for (const plugin of builtins) {
    for (const command of plugin.commands ?? []) table[command.path.join(' ')] = wrap(command, io, plugin.id, builtins);
  }
  return table;
}

function wrap(command: PluginCommand, io: CliIo, pluginId: string, builtins: PluginDefinition[]): Command {
  return {
    summary: command.summary,
    run: (argv) => {
      const flag = argv.findIndex((a) => a === '--config' || a === '-c');
      const configPath = configPathFrom(flag >= 0 ? argv[flag + 1] : undefined);
      return command.run(argv, { configPath, stdout: io.stdout, stderr: io.stderr, openHost: () => openCommandHost(pluginId, configPath, builtins) });
    },
  };
}
