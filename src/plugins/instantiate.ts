import type { Logger } from 'pino';
import type { HeraldConfig } from '../config/schema.js';
import type { Store } from '../store/port.js';
import type { PluginRegistry } from './registry.js';
import { pluginConfigKey, type ChannelAdapter, type PluginDefinition, type PluginInstance, type PluginState } from './sdk.js';

export interface PluginInstances {
  /** configured channels by plugin id */
  channels: Map<string, ChannelAdapter>;
  services: NonNullable<PluginInstance['services']>;
}

/** a plugin's own section of the validated config, e.g. config.channels.telegram */
export function pluginSection(config: HeraldConfig, plugin: PluginDefinition): unknown {
  return pluginConfigKey(plugin)
    .split('.')
    .reduce<unknown>((node, key) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined), config);
}

export function stateFor(store: Store, pluginId: string): PluginState {
  const key = (k: string) => `plugin:${pluginId}:${k}`;
  return {
    get: (k) => store.state.get(key(k)),
    set: (k, v) => store.state.set(key(k), v),
    update: (k, fn) => store.state.update(key(k), fn),
    delete: (k) => store.state.delete(key(k)),
    deleteOlderThan: (prefix, before) => store.state.deleteOlderThan(key(prefix), before),
  };
}

/**
 * Creates the plugins that have something to do: channels with a config section,
 * presets listed in `hooks.presets`, and services of either.
 */
export async function instantiatePlugins(registry: PluginRegistry, config: HeraldConfig, store: Store, logger: Logger): Promise<PluginInstances> {
  const result: PluginInstances = { channels: new Map(), services: [] };
  const enabledPresets = new Set(config.hooks.presets);
  for (const plugin of registry.plugins) {
    const section = pluginSection(config, plugin);
    const isChannel = plugin.roles.includes('channel') && section !== undefined;
    const isPreset = plugin.roles.includes('preset') && enabledPresets.has(plugin.id);
    const isService = plugin.roles.includes('service');
    if (!isChannel && !isPreset && !isService) continue;
    const instance = await plugin.create({
      config: section,
      logger: logger.child({ plugin: plugin.id }),
      host: { config: config as never, state: stateFor(store, plugin.id) },
    });
    if (isChannel && instance.channel) result.channels.set(plugin.id, instance.channel);
    result.services.push(...(instance.services ?? []));
  }
  return result;
}
