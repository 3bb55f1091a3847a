import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtinListings, builtinPlugins } from '../helpers/builtins.js';
import { configFaults } from '../helpers/config-faults.js';
import { loadConfigValue } from '../../src/plugin-host/load-config.js';
import type { PluginSource } from '../../src/plugin-sdk/sdk.js';

const file = path.resolve('herald.json');
const base = { hooks: { enabled: true, token: 'a-hook-token-of-enough-length-0123456789' } };

function faultsWith(builtins: PluginSource[], raw: unknown): Promise<string[]> {
  return configFaults(loadConfigValue(raw, file, { builtins, env: {} }));
}

describe('built-in plugins loaded once a config uses them', () => {
  it('a config that uses no plugin loads none', async () => {
    const loaded = await loadConfigValue(base, file, { builtins: builtinListings, env: {} });
    expect(loaded.plugins.plugins).toEqual([]);
    expect(loaded.plugins.channelNames()).toContain('imsg');
    expect(loaded.plugins.recipientFault('telegram', 'not a chat')).toMatch(/is not a telegram recipient/);
  });

  it('loads the channels with a section and the presets listed', async () => {
    const raw = { ...base, hooks: { ...base.hooks, presets: [{ name: 'github', secret: 's' }, { name: 'linear', secret: 's' }] }, channels: { telegram: { botToken: '1:a' } } };
    const loaded = await loadConfigValue(raw, file, { builtins: builtinListings, env: {} });
    expect(loaded.plugins.plugins.map((p) => p.id).sort()).toEqual(['github', 'linear', 'telegram']);
    expect(loaded.plugins.presetMappings(loaded.config).length).toBeGreaterThan(0);
  });

  it.each([
    ['a bad channel section', { channels: { telegram: { botToken: '' } } }],
    ['a channel section that is no object', { channels: { telegram: 5 } }],
    ['an unknown channel', { channels: { telegrma: { botToken: 'x' } } }],
    ['an alias as a section', { channels: { imsg: {} } }],
    ['an unknown preset', { hooks: { ...base.hooks, presets: ['githbu'] } }],
    ['a bad preset option', { hooks: { ...base.hooks, presets: [{ name: 'stripe', secret: 's', nope: 1 }] } }],
    ['a preset without its secret', { hooks: { ...base.hooks, presets: ['github'] } }],
    ['a bad gmail section', { hooks: { ...base.hooks, gmail: { account: 5 } } }],
  ])('faults as when every plugin is loaded: %s', async (_name, extra) => {
    const raw = { ...base, ...extra };
    const lazily = await faultsWith(builtinListings, raw);
    expect(lazily).toEqual(await faultsWith(builtinPlugins, raw));
    expect(lazily.length).toBeGreaterThan(0);
  });
});
