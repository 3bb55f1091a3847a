import { parseArgs } from 'node:util';
import { buildConfigSchema } from '../../config/sections/build-schema.js';
import { readConfigFile } from '../../config/loading/load.js';
import { PluginRegistry } from '../../plugin-host/registry.js';
import { loadConfigValue } from '../../plugin-host/load-config.js';
import type { PluginSource } from '../../plugin-sdk/sdk.js';
import { ConfigError } from '../../errors.js';
import { resolveMappings } from '../../mappings/loading/resolve-mappings.js';
import { alertTargetFaults } from '../../runtime/alerts/alert-targets.js';
import { scheduleTargetFaults } from '../../runtime/schedules/schedule-targets.js';
import { approvalTargetFaults } from '../../runtime/approvals/approval-targets.js';
import type { CliIo } from '../io/cli-io.js';
import { withPositions } from '../../mappings/loading/mapping-faults.js';
import { collectFaults, EnvPlaceholders, keysAt, pathSegments, splitFault } from './config-faults.js';
import { configPathFrom } from '../io/config-path.js';
import { configWarnings } from './config-warnings.js';
import { groupUnsetVariables } from '../../config/loading/unset-variables.js';
import { nearest } from '../io/nearest.js';

/**
 * `herald config check [--config FILE]`: every fault of a config file in one run (a fault that
 * stops the load does not hide the others), the nearest valid key for an unknown one, each unset
 * `${ENV}` once, then warnings about what will fail later. Exit 1 on a fault; warnings alone exit 0.
 */
export async function configCheckCommand(argv: string[], io: CliIo, builtins: PluginSource[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { config: { type: 'string', short: 'c' } } });
  const file = configPathFrom(values.config);
  let raw: unknown;
  try {
    raw = await readConfigFile(file);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return report(io, file, error.faults.map((f) => stripFile(f, file)), []);
  }
  const placeholders = new EnvPlaceholders();
  const mappingWarnings: string[] = [];
  // what the start logs as a note (a preset shadowed by your mappings on its path): worth knowing before it
  const mappingNotes: string[] = [];
  try {
    const { faults, loaded } = await collectFaults(
    raw,
    async (value) => {
      try {
        return await loadConfigValue(value, file, { builtins });
      } catch (error) {
        if (error instanceof ConfigError) throw new ConfigError(error.faults.map((f) => stripFile(f, file)));
        throw error;
      }
    },
    async (ready) => {
      mappingWarnings.length = 0;
      mappingNotes.length = 0;
      const channels = ready.config.channels as Record<string, unknown>;
      const targetChannels = {
        // a configured channel's recipient rule is known once it starts: `serve` checks that part
        configured: (channel: string) => (channels[channel] === undefined ? undefined : { requiresRecipient: false }),
        resolveChannel: (name: string) => ready.plugins.resolveChannel(name),
        recipientFault: (channel: string, to: string) => ready.plugins.recipientFault(channel, to),
      };
      const faults = [...alertTargetFaults(ready.config.alerts, targetChannels), ...approvalTargetFaults(ready.config.tools, targetChannels), ...scheduleTargetFaults('schedules.jobs', ready.config.schedules.jobs, targetChannels)];
      try {
        await resolveMappings(ready, { config: ready.config, channelNames: ready.plugins.channelNames(), warnings: mappingWarnings, notes: mappingNotes });
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        faults.unshift(...(await withPositions(error.faults, ready.config.hooks.mappingsDir)));
      }
      if (faults.length) throw new ConfigError(faults);
    },
    placeholders.set,
    );
    // every plugin's keys, for the nearest valid key to an unknown one
    const registry = loaded?.plugins ?? new PluginRegistry(builtins);
    await registry.loadAll();
    const schema = buildConfigSchema(registry.configSections());
    return report(io, file, explain(faults, schema, presetOptionKeys(raw, registry)), loaded ? [...loaded.warnings, ...mappingWarnings, ...(await configWarnings(loaded))] : [], mappingNotes);
  } finally {
    placeholders.restore();
  }
}

const stripFile = (fault: string, file: string) => (fault.startsWith(`${file}: `) ? fault.slice(file.length + 2) : fault);

/** the options the preset of `hooks.presets[i]` takes (its name read from the file as written) */
function presetOptionKeys(raw: unknown, registry: PluginRegistry): (index: number) => string[] {
  const entries = (raw as { hooks?: { presets?: unknown } } | undefined)?.hooks?.presets;
  return (index) => {
    const entry: unknown = Array.isArray(entries) ? entries[index] : undefined;
    const name = typeof entry === 'string' ? entry : (entry as { name?: unknown } | undefined)?.name;
    const plugin = registry.presets().find((p) => p.id === name);
    return plugin ? keysAt(plugin.preset.options, []) : [];
  };
}

/** unknown keys get their nearest valid sibling (a preset's option its preset's); an unset variable is one line naming every key that uses it */
function explain(faults: string[], schema: ReturnType<typeof buildConfigSchema>, presetKeys: (index: number) => string[]): string[] {
  const lines: string[] = [];
  for (const fault of faults) {
    const { path, message } = splitFault(fault);
    if (path && message === 'unknown key') {
      const segments = pathSegments(path);
      const key = String(segments.at(-1));
      const preset = segments.length === 4 && segments[0] === 'hooks' && segments[1] === 'presets' && typeof segments[2] === 'number' ? segments[2] : undefined;
      const siblings = preset === undefined ? keysAt(schema, segments.slice(0, -1)) : presetKeys(preset);
      const match = nearest(key, siblings.filter((k) => k !== key));
      lines.push(`${fault}${match ? ` (did you mean "${match}"?)` : ''}`);
      continue;
    }
    lines.push(fault);
  }
  return groupUnsetVariables(lines);
}

function report(io: CliIo, file: string, faults: string[], warnings: string[], notes: string[] = []): number {
  if (faults.length) {
    io.err(`${file}: ${faults.length} fault${faults.length === 1 ? '' : 's'}`);
    for (const fault of faults) io.err(`  ${fault}`);
    for (const warning of warnings) io.err(`  warning: ${warning}`);
    return 1;
  }
  io.out(`${file}: ok${warnings.length ? ` (${warnings.length} warning${warnings.length === 1 ? '' : 's'})` : ''}`);
  // loads and starts, but each of these wants a look (the line names the key)
  for (const warning of warnings) io.out(`  warning: ${warning}`);
  for (const note of notes) io.out(`  note: ${note}`);
  return 0;
}
