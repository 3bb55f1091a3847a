import type { HeraldConfig } from '../config/schema.js';
import { pluginConfigKey } from '../plugin-sdk/config-key.js';
import type { PluginSource } from '../plugin-sdk/sdk.js';

/** the node a path of keys leads to in a config value; undefined where it leaves the objects */
function nodeAt(value: unknown, keys: string[]): unknown {
  return keys.reduce<unknown>((node, key) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined), value);
}

/** a plugin's own section of the validated config, e.g. config.channels.telegram */
export function pluginSection(config: HeraldConfig, plugin: PluginSource): unknown {
  return nodeAt(config, pluginConfigKey(plugin).split('.'));
}

/** whether a config value, not yet validated, has a plugin's section key, whatever its value (a malformed one included) */
export function hasPluginSection(value: unknown, plugin: PluginSource): boolean {
  const keys = pluginConfigKey(plugin).split('.');
  const parent = nodeAt(value, keys.slice(0, -1));
  return parent !== null && typeof parent === 'object' && !Array.isArray(parent) && Object.hasOwn(parent, keys.at(-1)!);
}
