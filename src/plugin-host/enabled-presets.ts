import type { HeraldConfig } from '../config/schema.js';
import { formatIssues } from '../config/loading/format-issues.js';
import type { MappingConfig } from '../config/sections/mapping-schema.js';
import { PRESET_RUN_OPTIONS, presetName, type PresetEntry } from '../plugin-sdk/preset-entry.js';
import type { PresetDefinition } from '../plugin-sdk/preset.js';
import type { PluginDefinition } from '../plugin-sdk/sdk.js';
import { pluginSection } from './plugin-section.js';

/** A preset listed in `hooks.presets`, with its checked options. */
export interface EnabledPreset {
  /** `hooks.presets[i]` */
  key: string;
  name: string;
  /** the entry's own id: its mapping ids and session keys carry it (the preset's name unless listed more than once) */
  id: string;
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

/**
 * The id of an entry: its `id`, else the preset's name for the entry on the preset's own path or
 * the only entry of its preset (so one instance keeps the ids it always had), else its path made
 * an id (`gh-a`, `orgs/b` → `orgs-b`).
 */
export function instanceId(name: string, options: EnabledPreset['options'], preset: PresetDefinition, alone: boolean): string {
  if (typeof options.id === 'string') return options.id;
  if (alone || options.path === preset.path) return name;
  return options.path.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '') || name;
}

/** every entry of `hooks.presets`, checked: the presets and every fault (unknown name, bad or missing option, two entries with one id) */
export function enabledPresets(config: HeraldConfig, lookup: PresetLookup, known: () => string[]): { presets: EnabledPreset[]; faults: string[] } {
  const checked: Omit<EnabledPreset, 'id'>[] = [];
  const faults: string[] = [];
  config.hooks.presets.forEach((entry, i) => {
    const key = `hooks.presets[${i}]`;
    const name = presetName(entry as PresetEntry);
    const plugin = lookup(name);
    if (!isPreset(plugin)) {
      faults.push(`${key}: unknown preset "${name}" (known: ${known().join(', ') || 'none'})`);
      return;
    }
    const one = presetOptions(entry as PresetEntry, key, plugin, pluginSection(config, plugin));
    faults.push(...one.faults);
    if (one.options) checked.push({ key, name, plugin, preset: plugin.preset, options: one.options });
  });
  const count = new Map<string, number>();
  for (const { name } of checked) count.set(name, (count.get(name) ?? 0) + 1);
  const taken = new Map<string, string>();
  const presets = checked.map((entry) => ({ ...entry, id: instanceId(entry.name, entry.options, entry.preset, count.get(entry.name) === 1) }));
  for (const { key, id, name } of presets) {
    const earlier = taken.get(id);
    if (earlier) faults.push(`${key}: id "${id}" is also ${earlier}'s: give each ${name} entry its own path (or id)`);
    else taken.set(id, key);
  }
  return { presets, faults };
}

/** a preset's mapping id or session key pattern, its preset's name replaced by the entry's id */
function renamed(value: string, name: string, id: string): string {
  if (value === name) return id;
  return value.startsWith(`${name}-`) ? `${id}${value.slice(name.length)}` : `${id}-${value}`;
}

/**
 * One entry's mappings told apart from another entry's of the same preset: each mapping id and
 * the preset's own session keys (`hook:<name>:...`) carry the entry's id instead of the name.
 */
function asInstance(mapping: MappingConfig, name: string, id: string): MappingConfig {
  if (id === name) return mapping;
  const prefix = `hook:${name}:`;
  return {
    ...mapping,
    ...(mapping.id !== undefined && { id: renamed(mapping.id, name, id) }),
    ...(mapping.sessionKey?.startsWith(prefix) && { sessionKey: `hook:${id}:${mapping.sessionKey.slice(prefix.length)}` }),
  };
}

/**
 * The mapping set of a preset: its own mappings with the run options given (agentId, deliver,
 * channel, to, sessionKey, model, ...) laid over each mapping that starts a run.
 */
export function expandPreset(preset: PresetDefinition, options: EnabledPreset['options'], instance?: { name: string; id: string }): MappingConfig[] {
  const run = Object.fromEntries(PRESET_RUN_OPTIONS.filter((k) => options[k] !== undefined).map((k) => [k, options[k]]));
  const own = preset.mappings(options as never).map((mapping) => (instance ? asInstance(mapping, instance.name, instance.id) : mapping));
  // a wake starts no run, a skip answers 204: neither takes the run options
  return own.map((mapping) => (mapping.action === 'wake' || mapping.action === 'skip' ? mapping : { ...mapping, ...run }));
}

/**
 * The mapping set one entry of `hooks.presets` expands to, as `herald presets show` prints it and
 * the preset fixtures run it: the mappings, or the faults of its options.
 */
export function presetMappingSet(plugin: PluginDefinition, entry: PresetEntry, key = 'preset'): { mappings?: MappingConfig[]; faults: string[] } {
  if (!isPreset(plugin)) return { faults: [`${key}: "${plugin.id}" is not a preset`] };
  const { options, faults } = presetOptions(entry, key, plugin, undefined);
  if (!options) return { faults };
  return { mappings: expandPreset(plugin.preset, options, { name: plugin.id, id: instanceId(plugin.id, options, plugin.preset, true) }), faults };
}
