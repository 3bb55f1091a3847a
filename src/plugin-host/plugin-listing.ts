import type { PluginDefinition, PluginListing, PluginSource } from '../plugin-sdk/sdk.js';

/** a listed plugin is not loaded yet; a defined one is */
export function isListing(source: PluginSource): source is PluginListing {
  return typeof (source as PluginListing).load === 'function' && typeof (source as PluginDefinition).create !== 'function';
}

/** a source's definition, loading it when it is only listed */
export function loadPlugin(source: PluginSource): Promise<PluginDefinition> {
  return isListing(source) ? source.load() : Promise.resolve(source);
}

/** every source loaded, in order: for what lists every plugin (docs, `presets list`, the CLI's plugin commands) */
export function loadPlugins(sources: PluginSource[]): Promise<PluginDefinition[]> {
  return Promise.all(sources.map(loadPlugin));
}
