import type { Store } from '../store/port.js';
import type { PluginState } from '../plugin-sdk/sdk.js';

/** a plugin's durable key/value state: the store's state table, its keys prefixed with the plugin's id */
export function stateFor(store: Store, pluginId: string): PluginState {
  const key = (k: string) => `plugin:${pluginId}:${k}`;
  return {
    get: (k) => store.state.get(key(k)),
    set: (k, v) => store.state.set(key(k), v),
    update: (k, fn) => store.state.update(key(k), fn),
    delete: (k) => store.state.delete(key(k)),
    deleteOlderThan: (prefix, before) => store.state.deleteOlderThan(key(prefix), before),
  };
}
