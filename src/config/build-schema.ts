import { z } from 'zod';
import { coreConfigShape, hooksSchema } from './schema.js';
import { pluginConfigKey, type PluginDefinition } from '../plugins/sdk.js';

/**
 * The schema of a config file for a given set of plugins: the core schema with each plugin's
 * own schema mounted at its key (`channels.<id>` or `hooks.<id>`), so unknown keys stay errors
 * everywhere and every plugin's config is declared exactly once, in its manifest.
 */
export function buildConfigSchema(plugins: PluginDefinition[]) {
  const channelShape: Record<string, z.ZodType> = {};
  const hooksShape: Record<string, z.ZodType> = {};
  for (const plugin of plugins) {
    const [section, key] = pluginConfigKey(plugin).split('.') as [string, string];
    const target = section === 'channels' ? channelShape : section === 'hooks' ? hooksShape : undefined;
    if (target) target[key] = plugin.config.optional().describe(`${plugin.summary}`);
  }
  const hooks = hooksSchema.extend(hooksShape);
  return z
    .object({
      ...coreConfigShape,
      hooks: hooks.default(hooks.parse({})).describe(coreConfigShape.hooks.description ?? ''),
      channels: z.object(channelShape).strict().default({}).describe(coreConfigShape.channels.description ?? ''),
    })
    .strict();
}
