import type { PluginDefinition } from '../src/plugin-sdk/sdk.js';
import { builtinListings } from './listings.js';

export { builtinListings };

/** every built-in plugin, loaded: for what lists them all at once (tests, benches); herald itself takes the listings */
export const builtinPlugins: PluginDefinition[] = await Promise.all(builtinListings.map((listing) => listing.load()));
