import type { PluginDefinition } from './sdk.js';

/** Where a plugin's config section lives in herald.json5. */
export function pluginConfigKey(plugin: Pick<PluginDefinition, 'id' | 'roles' | 'configKey'>): string {
  return plugin.configKey ?? (plugin.roles.includes('channel') ? `channels.${plugin.id}` : `plugins.${plugin.id}`);
}
