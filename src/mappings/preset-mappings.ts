import type { LoadedConfig } from '../config/load.js';
import { pluginSection } from '../plugins/instantiate.js';

/** The mapping data of every preset listed in `hooks.presets`, in that order. */
export function presetMappings(loaded: LoadedConfig): { origin: string; raw: unknown; preset: true }[] {
  const out: { origin: string; raw: unknown; preset: true }[] = [];
  for (const id of loaded.config.hooks.presets) {
    const plugin = loaded.plugins.get(id);
    if (!plugin?.roles.includes('preset') || !plugin.mappings) continue;
    plugin.mappings(pluginSection(loaded.config, plugin)).forEach((raw, i) => out.push({ origin: `preset ${id} [${i}]`, raw, preset: true }));
  }
  return out;
}
