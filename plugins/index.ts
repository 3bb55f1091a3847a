import type { PluginDefinition } from '../src/plugins/sdk.js';
import { gmailPlugin } from './gmail/manifest.js';

/** The explicit list of built-in plugins. A plugin is one folder; add its manifest here. */
export const builtinPlugins: PluginDefinition[] = [gmailPlugin as unknown as PluginDefinition];
