/** what names a plugin's config section: its id, its roles and the key it may choose (PluginDefinition's fields) */
interface ConfigKeyed {
  id: string;
  roles: readonly string[];
  configKey?: string;
}

/** Where a plugin's config section lives in herald.json5. */
export function pluginConfigKey(plugin: ConfigKeyed): string {
  return plugin.configKey ?? (plugin.roles.includes('channel') ? `channels.${plugin.id}` : `plugins.${plugin.id}`);
}
