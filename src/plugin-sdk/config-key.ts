/** what a plugin is to herald: a messaging channel, a sender's preset, CLI commands, a background service */
export type PluginRole = 'channel' | 'preset' | 'commands' | 'service';

/** what names a plugin's config section: PluginDefinition's id, roles and the key it may choose */
interface ConfigKeyed {
  id: string;
  roles: readonly PluginRole[];
  configKey?: string;
}

/** Where a plugin's config section lives in herald.json5. */
export function pluginConfigKey(plugin: ConfigKeyed): string {
  return plugin.configKey ?? (plugin.roles.includes('channel') ? `channels.${plugin.id}` : `plugins.${plugin.id}`);
}
