import type { Logger } from 'pino';
import type { HeraldConfig } from '../config/schema.js';
import type { Store } from '../store/port.js';
import type { PluginRegistry } from './registry.js';
import type { ChannelAdapter, PluginInstance, PluginState } from '../plugins/sdk.js';
import { pluginSection } from './plugin-section.js';
import { presetName } from '../plugins/preset.js';

export interface PluginInstances {
  /** configured channels by plugin id */
  channels: Map<string, ChannelAdapter>;
  services: NonNullable<PluginInstance['services']>;
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
  const enabledPresets = new Set(config.hooks.presets.map(presetName));
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
