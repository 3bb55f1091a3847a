import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import type { ConfigSection } from '../config/sections/build-schema.js';
import type { HeraldConfig } from '../config/schema.js';
import { pluginConfigKey } from '../plugin-sdk/config-key.js';
import type { PluginDefinition, PluginSource } from '../plugin-sdk/sdk.js';
import type { PresetDefinition } from '../plugin-sdk/preset.js';
import { enabledPresets, expandPreset } from './enabled-presets.js';
import { isListing, loadPlugin } from './plugin-listing.js';
import { hasPluginSection } from './plugin-section.js';

/**
 * Registers plugins: built-ins first (handed in by the CLI), then the third-party ones named in `plugins`.
 * A duplicate id, an alias that clashes or a missing dependency fails the start, loudly. A listed
 * plugin (a built-in) is loaded when a config uses it (`loadUsedBy`) or when asked for (`definition`):
 * names, aliases and recipients are answered from its listing, its schemas only once it is loaded.
 */
export class PluginRegistry {
  /** every plugin, loaded or only listed, in registration order */
  readonly listings: PluginSource[];
  private readonly loaded = new Map<string, PluginDefinition>();

  constructor(plugins: PluginSource[]) {
    const faults: string[] = [];
    const ids = new Set<string>();
    for (const plugin of plugins) {
      if (ids.has(plugin.id)) faults.push(`plugins: duplicate plugin id "${plugin.id}"`);
      ids.add(plugin.id);
    }
    const names = new Set(ids);
    for (const plugin of plugins) {
      for (const alias of plugin.aliases ?? []) {
        if (names.has(alias)) faults.push(`plugins: alias "${alias}" of "${plugin.id}" is already taken`);
        names.add(alias);
      }
      for (const dependency of plugin.dependsOn ?? []) {
        if (!ids.has(dependency)) faults.push(`plugins: "${plugin.id}" needs plugin "${dependency}", which is not loaded`);
      }
    }
    if (faults.length) throw new ConfigError(faults);
    this.listings = plugins;
    for (const plugin of plugins) if (!isListing(plugin)) this.loaded.set(plugin.id, plugin);
  }

  /** the plugins loaded so far (every defined one, the listed ones a config used), in registration order */
  get plugins(): PluginDefinition[] {
    return this.listings.flatMap((p) => this.loaded.get(p.id) ?? []);
  }

  /** a loaded plugin; undefined for an unknown id or one not loaded yet */
  get(id: string): PluginDefinition | undefined {
    return this.loaded.get(id);
  }

  /** a plugin's definition, loaded on first use; undefined for an unknown id */
  async definition(id: string): Promise<PluginDefinition | undefined> {
    const listing = this.listings.find((p) => p.id === id);
    if (!listing) return undefined;
    let plugin = this.loaded.get(id);
    if (!plugin) this.loaded.set(id, (plugin = await loadPlugin(listing)));
    return plugin;
  }

  /** every plugin, each loaded: for what lists them all (docs, `presets list`, `config check`'s hints) */
  async loadAll(): Promise<PluginDefinition[]> {
    await Promise.all(this.listings.map((p) => this.definition(p.id)));
    return this.plugins;
  }

  /**
   * Loads the plugins a config value (env-substituted, not yet validated) uses: those whose section
   * it has (`channels.telegram`, `hooks.gmail`, even when the section is malformed, so the fault is
   * the plugin schema's) and the presets `hooks.presets` names. The others' sections stay out of
   * the schema, where an unknown key is refused as before.
   */
  async loadUsedBy(value: unknown): Promise<void> {
    const entries = (value as { hooks?: { presets?: unknown } } | null)?.hooks?.presets;
    const presetNames = new Set(Array.isArray(entries) ? entries.map((e: unknown) => (typeof e === 'string' ? e : (e as { name?: unknown } | null)?.name)) : []);
    const used = this.listings.filter((p) => hasPluginSection(value, p) || (p.roles.includes('preset') && presetNames.has(p.id)));
    await Promise.all(used.map((p) => this.definition(p.id)));
  }

  channels(): PluginSource[] {
    return this.listings.filter((p) => p.roles.includes('channel'));
  }

  /** `imsg` -> `imessage`; a plain id maps to itself; unknown names give undefined */
  resolveChannel(name: string): string | undefined {
    for (const plugin of this.channels()) {
      if (plugin.id === name || plugin.aliases?.includes(name)) return plugin.id;
    }
    return undefined;
  }

  /** the config section of each loaded plugin, for the config schema */
  configSections(): ConfigSection[] {
    return this.plugins.map((plugin) => ({ key: pluginConfigKey(plugin), schema: plugin.config, summary: plugin.summary }));
  }

  /** the loaded plugins that are mapping presets */
  presets(): (PluginDefinition & { preset: PresetDefinition })[] {
    return this.plugins.filter((p): p is PluginDefinition & { preset: PresetDefinition } => p.roles.includes('preset') && p.preset !== undefined);
  }

  /** the names of every preset, loaded or only listed */
  presetNames(): string[] {
    return this.listings.filter((p) => p.roles.includes('preset') && (isListing(p) || p.preset !== undefined)).map((p) => p.id);
  }

  /** every entry of `hooks.presets`, checked against its preset's options (faults name `hooks.presets[i].<key>`); its presets loaded (`loadUsedBy`) */
  enabledPresets(config: HeraldConfig): ReturnType<typeof enabledPresets> {
    return enabledPresets(config, (name) => this.get(name), () => this.presetNames());
  }
  /** the mapping data of every preset listed in `hooks.presets`, in that order */
  presetMappings(config: HeraldConfig): { origin: string; raw: unknown; preset: true }[] {
    return this.enabledPresets(config).presets.flatMap(({ key, name, id, preset, options }) =>
      expandPreset(preset, options, { name, id }).map((raw, i) => ({ origin: `${key} (${name}, mapping ${i})`, raw, preset: true as const })),
    );
  }

  /** why `to` is no recipient of `channel` (undefined when it is fine): the plugin's own pattern, checked at accept time */
  recipientFault(channel: string, to: string): string | undefined {
    const plugin = this.channels().find((p) => p.id === channel || p.aliases?.includes(channel));
    if (plugin?.recipient && !plugin.recipient.pattern.test(to)) return `is not a ${plugin.id} recipient: ${plugin.recipient.description}`;
    return undefined;
  }

  /** every value the `channel` field may take */
  channelNames(): string[] {
    return ['last', ...this.channels().flatMap((p) => [p.id, ...(p.aliases ?? [])])];
  }
}

/** Loads third-party plugins: a path relative to the config file, or a package name. */
export async function loadExternalPlugins(specs: string[], baseDir: string): Promise<PluginDefinition[]> {
  const loaded: PluginDefinition[] = [];
  for (const spec of specs) {
    const target = spec.startsWith('.') || path.isAbsolute(spec) ? pathToFileURL(path.resolve(baseDir, spec)).href : spec;
    let mod: Record<string, unknown>;
    try {
      mod = (await import(target)) as Record<string, unknown>;
    } catch (error) {
      throw new ConfigError([`plugins: cannot load "${spec}": ${(error as Error).message}`]);
    }
    const exported = mod.default ?? mod.plugin;
    const list = Array.isArray(exported) ? exported : [exported];
    for (const plugin of list) {
      if (!plugin || typeof plugin !== 'object' || typeof (plugin as PluginDefinition).id !== 'string' || typeof (plugin as PluginDefinition).create !== 'function') {
        throw new ConfigError([`plugins: "${spec}" does not export a plugin made with definePlugin (default export)`]);
      }
      loaded.push(plugin as PluginDefinition);
    }
  }
  return loaded;
}
