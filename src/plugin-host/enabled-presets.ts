import type { HeraldConfig } from '../config/schema.js';
import { formatIssues } from '../config/loading/format-issues.js';
import type { MappingConfig } from '../config/mapping-schema.js';
import { PRESET_RUN_OPTIONS, presetName, type PresetDefinition, type PresetEntry } from '../plugin-sdk/preset.js';
import type { PluginDefinition } from '../plugin-sdk/sdk.js';
import { pluginSection } from './plugin-section.js';

/** A preset listed in `hooks.presets`, with its checked options. */
export interface EnabledPreset {
  /** `hooks.presets[i]` */
  key: string;
  name: string;
  plugin: PluginDefinition;
  preset: PresetDefinition;
  options: Record<string, unknown> & { path: string };
}

type PresetLookup = (name: string) => PluginDefinition | undefined;

/**
 * The options of one entry, checked by the preset's schema: those of the plugin's own config
 * section (gmail's `hooks.gmail.model`) under those written in `hooks.presets`. Faults name
 * `hooks.presets[i].<key>`; a required option (the signing secret) that is missing is one.
 */
export function presetOptions(
  entry: PresetEntry,
  key: string,
  plugin: PluginDefinition & { preset: PresetDefinition },
  section: unknown,
): { options?: EnabledPreset['options']; faults: string[] } {
  const preset = plugin.preset;
  const given = typeof entry === 'string' ? { name: entry } : entry;
  const parsed = preset.options.safeParse({ ...preset.optionsFromConfig?.(section), ...given });
  if (!parsed.success) return { faults: formatIssues(parsed.error.issues, key) };
  const options = parsed.data as Record<string, unknown>;
  const faults = (preset.requires ?? [])
    .filter((option) => options[option] === undefined)
    .map((option) => `${key}.${option}: required: the ${plugin.id} preset verifies ${preset.verifies} (write { name: "${plugin.id}", ${option}: "\${...}" })`);
  return faults.length ? { faults } : { options: { ...options, path: (options.path as string | undefined) ?? preset.path }, faults };
}

function isPreset(plugin: PluginDefinition | undefined): plugin is PluginDefinition & { preset: PresetDefinition } {
  return plugin?.preset !== undefined && plugin.roles.includes('preset');
}

/** every entry of `hooks.presets`, checked: the presets and every fault (unknown name, bad or missing option) */
export function enabledPresets(config: HeraldConfig, lookup: PresetLookup, known: () => string[]): { presets: EnabledPreset[]; faults: string[] } {
  const presets: EnabledPreset[] = [];
  const faults: string[] = [];
  config.hooks.presets.forEach((entry, i) => {
    const key = `hooks.presets[${i}]`;
    const name = presetName(entry as PresetEntry);
    const plugin = lookup(name);
    if (!isPreset(plugin)) {
      faults.push(`${key}: unknown preset "${name}" (known: ${known().join(', ') || 'none'})`);
      return;
    }
    const checked = presetOptions(entry as PresetEntry, key, plugin, pluginSection(config, plugin));
    faults.push(...checked.faults);
    if (checked.options) presets.push({ key, name, plugin, preset: plugin.preset, options: checked.options });
  });
  return { presets, faults };
}

/**
 * The mapping set of a preset: its own mappings with the run options given (agentId, deliver,
 * channel, to, sessionKey, model, ...) laid over each mapping that starts a run.
 */
export function expandPreset(preset: PresetDefinition, options: EnabledPreset['options']): MappingConfig[] {
  const run = Object.fromEntries(PRESET_RUN_OPTIONS.filter((k) => options[k] !== undefined).map((k) => [k, options[k]]));
  // a wake starts no run, a skip answers 204: neither takes the run options
  return preset.mappings(options as never).map((mapping) => (mapping.action === 'wake' || mapping.action === 'skip' ? mapping : { ...mapping, ...run }));
}

/**
 * The mapping set one entry of `hooks.presets` expands to, as `herald presets show` prints it and
 * the preset fixtures run it: the mappings, or the faults of its options.
 */
export function presetMappingSet(plugin: PluginDefinition, entry: PresetEntry, key = 'preset'): { mappings?: MappingConfig[]; faults: string[] } {
  if (!isPreset(plugin)) return { faults: [`${key}: "${plugin.id}" is not a preset`] };
  const { options, faults } = presetOptions(entry, key, plugin, undefined);
  return options ? { mappings: expandPreset(plugin.preset, options), faults } : { faults };
}
