import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { readConfigFile } from '../../config/loading/load.js';
import { PluginRegistry } from '../../plugin-host/registry.js';
import { presetMappingSet } from '../../plugin-host/enabled-presets.js';
import type { MappingConfig } from '../../config/sections/mapping-schema.js';
import type { PluginSource } from '../../plugin-sdk/sdk.js';
import type { CliIo } from '../io/cli-io.js';
import { configPathFrom } from '../io/config-path.js';
import { didYouMean } from '../io/nearest.js';

/** `herald presets list`: each preset's name, path and what it verifies. */
export async function presetsListCommand(_argv: string[], io: CliIo, builtins: PluginSource[]): Promise<number> {
  const registry = new PluginRegistry(builtins);
  await registry.loadAll();
  const presets = registry.presets();
  const width = Math.max(...presets.map((p) => p.id.length));
  const pathWidth = Math.max(...presets.map((p) => p.preset.path.length));
  for (const { id, preset } of presets) io.out(`${id.padEnd(width)}  /${preset.path.padEnd(pathWidth)}  ${preset.verifies}`);
  return 0;
}

function parseOptions(argv: string[]) {
  return parseArgs({ args: argv, allowPositionals: true, options: { option: { type: 'string', short: 'o', multiple: true }, config: { type: 'string', short: 'c' } } });
}

/**
 * `--option secret=${X}` pairs as an entry of hooks.presets; a JSON value (true, 2, ["a","b"])
 * is taken as JSON, anything else as a string.
 */
function presetEntry(name: string, pairs: string[]): Record<string, unknown> & { name: string } {
  const entry: Record<string, unknown> & { name: string } = { name };
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new Error(`--option "${pair}" must look like KEY=VALUE`);
    const value = pair.slice(at + 1);
    let parsed: unknown = value;
    try {
      parsed = JSON.parse(value);
    } catch {
      // a plain string
    }
    entry[pair.slice(0, at)] = parsed;
  }
  return entry;
}

/**
 * The entry of hooks.presets that enables NAME in the config file, as written (its `${ENV}`
 * references kept), when there is exactly one: what the ejected mappings should verify with.
 */
async function configuredEntry(configFile: string, name: string): Promise<{ at: number; options: Record<string, unknown> } | undefined> {
  if (!fs.existsSync(configFile)) return undefined;
  const presets = ((await readConfigFile(configFile)) as { hooks?: { presets?: unknown } } | undefined)?.hooks?.presets;
  if (!Array.isArray(presets)) return undefined;
  const nameOf = (entry: unknown) => (typeof entry === 'string' ? entry : (entry as { name?: unknown } | null)?.name);
  const found = presets.flatMap((entry, at) => (nameOf(entry) === name ? [{ at, entry }] : []));
  if (found.length !== 1) return undefined;
  const { at, entry } = found[0]!;
  const { name: _name, ...options } = typeof entry === 'string' ? { name } : (entry as Record<string, unknown>);
  return { at, options };
}

/** the mapping set NAME expands to with the given options (for eject, over its entry in the config); a fault is printed and gives undefined */
async function expand(command: string, argv: string[], io: CliIo, builtins: PluginSource[]): Promise<{ name: string; mappings: MappingConfig[]; configFile?: string } | undefined> {
  const { values, positionals } = parseOptions(argv);
  const name = positionals[0];
  const registry = new PluginRegistry(builtins);
  await registry.loadAll();
  const known = registry.presets().map((p) => p.id);
  if (!name) {
    io.err(`herald presets ${command}: which preset? (${known.join(', ')})`);
    return undefined;
  }
  const plugin = registry.presets().find((p) => p.id === name);
  if (!plugin) {
    io.err(`herald presets ${command}: unknown preset "${name}"${didYouMean(name, known)} (herald presets list)`);
    return undefined;
  }
  // options its secret is required for are shown as a placeholder: the set is the same with any value
  const placeholders = Object.fromEntries((plugin.preset.requires ?? []).map((key) => [key, `\${${name.toUpperCase().replace(/-/g, '_')}_${key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}}`]));
  // ejected in place of an enabled preset, the file verifies with the entry's own secret reference
  const configured = command === 'eject' ? await configuredEntry(configPathFrom(values.config), name) : undefined;
  if (configured) io.err(`options of hooks.presets[${configured.at}] in ${path.resolve(configPathFrom(values.config))}${values.option?.length ? ', under --option' : ''}`);
  const entry = { ...placeholders, ...configured?.options, ...presetEntry(name, values.option ?? []) };
  const { mappings, faults } = presetMappingSet(plugin, entry, '--option');
  if (!mappings) {
    for (const fault of faults) io.err(`herald presets ${command}: ${fault}`);
    return undefined;
  }
  return { name, mappings, configFile: values.config };
}

/** `herald presets show NAME [--option K=V ...]`: the mapping set NAME expands to, as YAML. */
export async function presetsShowCommand(argv: string[], io: CliIo, builtins: PluginSource[]): Promise<number> {
  const expanded = await expand('show', argv, io, builtins);
  if (!expanded) return 2;
  io.out(stringify(expanded.mappings).trimEnd());
  return 0;
}

/** the mappings folder of the config (hooks.mappingsDir, relative to the config file), else ./mappings */
async function mappingsDir(configFile: string): Promise<string> {
  const dir = path.dirname(path.resolve(configFile));
  if (!fs.existsSync(configFile)) return path.resolve('mappings');
  const hooks = ((await readConfigFile(configFile)) as { hooks?: { mappingsDir?: unknown } } | undefined)?.hooks;
  return path.resolve(dir, typeof hooks?.mappingsDir === 'string' ? hooks.mappingsDir : './mappings');
}

/**
 * `herald presets eject NAME [--option K=V ...]`: writes the mapping set into the mappings folder
 * as `<NAME>.yaml`, to customise; never over an existing file.
 */
export async function presetsEjectCommand(argv: string[], io: CliIo, builtins: PluginSource[]): Promise<number> {
  const expanded = await expand('eject', argv, io, builtins);
  if (!expanded) return 2;
  const dir = await mappingsDir(configPathFrom(expanded.configFile));
  const file = path.join(dir, `${expanded.name}.yaml`);
  if (fs.existsSync(file)) {
    io.err(`herald presets eject: ${file} exists; not overwritten (move it away, or edit it)`);
    return 1;
  }
  fs.mkdirSync(dir, { recursive: true });
  const header = `# The ${expanded.name} preset, ejected by \`herald presets eject ${expanded.name}\`: edit freely.\n# \${...} references are read from the environment at start.\n`;
  fs.writeFileSync(file, header + stringify(expanded.mappings), { flag: 'wx' });
  io.out(`wrote ${file}`);
  io.out(`remove "${expanded.name}" from hooks.presets: the preset's mappings on the same path come after these and would never be reached.`);
  return 0;
}
