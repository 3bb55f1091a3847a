import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { builtinListings } from '../../plugins/listings.js';

describe('built-in plugin listings', () => {
  it('each says what its manifest says: id, roles, aliases, dependencies, config key, recipient', async () => {
    for (const listing of builtinListings) {
      const plugin = await listing.load();
      const { load: _load, ...listed } = listing;
      const stated = { id: plugin.id, roles: plugin.roles, aliases: plugin.aliases, dependsOn: plugin.dependsOn, configKey: plugin.configKey, recipient: plugin.recipient };
      expect({ aliases: undefined, dependsOn: undefined, configKey: undefined, recipient: undefined, ...listed }, listing.id).toEqual(stated);
    }
  });

  // a start loads only the built-ins its config uses: one it does not use must have nothing to do
  it('a service plugin without its section starts no service', async () => {
    for (const listing of builtinListings.filter((l) => l.roles.includes('service'))) {
      const plugin = await listing.load();
      const host = { config: { hooks: { enabled: true, path: '/hooks', presets: [], mappings: [] }, gateway: { host: '127.0.0.1', port: 0 } }, state: {} as never };
      const instance = await plugin.create({ config: undefined, logger: pino({ level: 'silent' }), host });
      expect(instance.services ?? [], listing.id).toEqual([]);
    }
  });
});
