import type { Logger } from 'pino';
import type { HeraldConfig } from '../config/schema.js';
import type { Store } from '../store/port.js';
import type { PluginRegistry } from './registry.js';
import type { ChannelAdapter, PluginInstance } from '../plugin-sdk/sdk.js';
import { pluginSection } from './plugin-section.js';
import { presetName } from '../plugin-sdk/preset-entry.js';
import { stateFor } from './plugin-state.js';
import { ChannelAccountsRegistry, createChannelAccounts } from './channel-accounts.js';

export { stateFor };

export interface PluginInstances {
  /** configured channels by plugin id: each one's default account */
  channels: Map<string, ChannelAdapter>;
  /** every account of each configured channel (its default one also in `channels`) */
  accounts: ChannelAccountsRegistry;
  services: NonNullable<PluginInstance['services']>;
}

/**
 * Creates the plugins that have something to do: channels with a config section (one instance
 * per account), presets listed in `hooks.presets`, and services of either. Only loaded plugins
 * are looked at: a built-in the config does not use was never loaded and has nothing to do.
 */
export async function instantiatePlugins(registry: PluginRegistry, config: HeraldConfig, store: Store, logger: Logger): Promise<PluginInstances> {
  const channels = new Map<string, ChannelAdapter>();
  const result: PluginInstances = { channels, accounts: new ChannelAccountsRegistry(channels), services: [] };
  const enabledPresets = new Set(config.hooks.presets.map(presetName));
  for (const plugin of registry.plugins) {
    const section = pluginSection(config, plugin);
    const isChannel = plugin.roles.includes('channel') && section !== undefined;
    if (isChannel) {
      const accounts = await createChannelAccounts(plugin, section as Record<string, unknown>, config, store, logger);
      if (accounts) result.accounts.set(plugin.id, accounts);
    }
    const isPreset = plugin.roles.includes('preset') && enabledPresets.has(plugin.id);
    const isService = plugin.roles.includes('service');
    if (!isPreset && !isService) continue;
    // a preset or a service: one instance, its channel (if any) already made above
    const instance = await plugin.create({
      config: section,
      logger: logger.child({ plugin: plugin.id }),
      host: { config: config as never, state: stateFor(store, plugin.id) },
    });
    result.services.push(...(instance.services ?? []));
  }
  return result;
}
