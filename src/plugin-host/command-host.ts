import { createLogger } from '../log/log.js';
import { openStore } from '../store/open-store.js';
import type { PluginCommandHost, PluginDefinition, PluginSource } from '../plugin-sdk/sdk.js';
import { stateFor } from './instantiate.js';
import { loadConfigFile } from './load-config.js';
import { pluginSection } from './plugin-section.js';

/**
 * What a plugin command that works on its own gets (`webhooks gmail run`): the validated
 * config, the plugin's section, its durable state in the configured store, and a logger.
 */
export async function openCommandHost(pluginId: string, configPath: string, builtins: PluginSource[]): Promise<PluginCommandHost> {
  const loaded = await loadConfigFile(configPath, { builtins });
  const plugin = (await loaded.plugins.definition(pluginId)) as PluginDefinition;
  const store = await openStore(loaded.config);
  const logger = createLogger().child({ plugin: pluginId });
  return {
    config: pluginSection(loaded.config, plugin),
    host: { config: loaded.config as never, state: stateFor(store, pluginId) },
    logger,
    close: () => store.close(),
  };
}
