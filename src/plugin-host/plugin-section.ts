import type { HeraldConfig } from '../config/schema.js';
import { pluginConfigKey } from '../plugin-sdk/config-key.js';
import type { PluginSource } from '../plugin-sdk/sdk.js';

/** a plugin's own section of the validated config, e.g. config.channels.telegram */
export function pluginSection(config: HeraldConfig, plugin: PluginSource): unknown {
  return pluginConfigKey(plugin)
    .split('.')
    .reduce<unknown>((node, key) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined), config);
}
