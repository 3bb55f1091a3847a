import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { builtinPlugins, loadConfigFile } from '../helpers/builtins.js';
import { ConfigError } from '../../src/errors.js';
import { PluginRegistry, loadExternalPlugins } from '../../src/plugin-host/registry.js';
import { definePlugin, type PluginDefinition } from '../../src/plugin-sdk/sdk.js';
import { tempDir } from '../helpers/start-herald.js';

const plugin = (id: string, extra: Partial<PluginDefinition> = {}) =>
  definePlugin({ id, roles: ['channel'], summary: id, config: z.object({}).strict(), create: () => ({}), ...extra });

function faultsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).faults;
  }
  throw new Error('no ConfigError');
}

describe('plugin registry', () => {
  it('refuses a duplicate id', () => {
    expect(faultsOf(() => new PluginRegistry([plugin('telegram'), plugin('telegram')]))).toEqual(['plugins: duplicate plugin id "telegram"']);
  });

  it('refuses an alias that clashes with an id or another alias', () => {
    const faults = faultsOf(() => new PluginRegistry([plugin('slack'), plugin('teams', { aliases: ['slack'] }), plugin('x', { aliases: ['y'] }), plugin('z', { aliases: ['y'] })]));
    expect(faults).toEqual(['plugins: alias "slack" of "teams" is already taken', 'plugins: alias "y" of "z" is already taken']);
  });

  it('refuses a plugin whose dependency is missing', () => {
    expect(faultsOf(() => new PluginRegistry([plugin('a', { dependsOn: ['b'] })]))).toEqual(['plugins: "a" needs plugin "b", which is not loaded']);
  });

  it('lists last plus the ids and aliases of the built-in channels, and resolves aliases', async () => {
    const registry = new PluginRegistry(builtinPlugins);
    expect(registry.channelNames().sort()).toEqual(
      ['last', 'telegram', 'slack', 'discord', 'mattermost', 'signal', 'imessage', 'imsg', 'msteams', 'teams', 'whatsapp', 'webhook'].sort(),
    );
    expect(registry.resolveChannel('imsg')).toBe('imessage');
    expect(registry.resolveChannel('teams')).toBe('msteams');
    expect(registry.resolveChannel('fax')).toBeUndefined();
  });
});

const externalPluginSource = `
import { z } from 'zod';
import { definePlugin } from ${JSON.stringify(path.resolve('src/plugin-sdk/sdk.ts'))};
export default definePlugin({
  id: 'pager',
  roles: ['channel'],
  aliases: ['beeper'],
  summary: 'A pager network.',
  config: z.object({ url: z.string().url().describe('Pager gateway URL.') }).strict(),
  create: ({ config }) => ({ channel: { async send() { return {}; } } }),
});
`;

describe('third-party plugins', () => {
  it('loads a plugin file named in `plugins`, mounts its config and accepts its channel names', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'pager-plugin.ts'), externalPluginSource);
    fs.writeFileSync(
      path.join(dir, 'herald.json'),
      JSON.stringify({ plugins: ['./pager-plugin.ts'], storage: { sqlite: ':memory:' }, channels: { pager: { url: 'http://127.0.0.1:9/' } } }),
    );
    const loaded = await loadConfigFile(path.join(dir, 'herald.json'));
    expect(loaded.plugins.get('pager')).toBeTruthy();
    expect(loaded.plugins.channelNames()).toEqual(expect.arrayContaining(['pager', 'beeper', 'telegram']));
    expect((loaded.config.channels as Record<string, unknown>).pager).toEqual({ url: 'http://127.0.0.1:9/' });
  });

  it('validates a third-party plugin\'s config with its own schema', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'pager-plugin.ts'), externalPluginSource);
    fs.writeFileSync(path.join(dir, 'herald.json'), JSON.stringify({ plugins: ['./pager-plugin.ts'], channels: { pager: { url: 'not a url' } } }));
    await expect(loadConfigFile(path.join(dir, 'herald.json'))).rejects.toThrow(/channels\.pager\.url/);
  });

  it('refuses a third-party plugin that reuses a built-in id', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'evil.ts'), externalPluginSource.replace("id: 'pager'", "id: 'telegram'"));
    fs.writeFileSync(path.join(dir, 'herald.json'), JSON.stringify({ plugins: ['./evil.ts'] }));
    await expect(loadConfigFile(path.join(dir, 'herald.json'))).rejects.toThrow('duplicate plugin id "telegram"');
  });

  it('names a plugin that cannot be loaded or is not a plugin', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'nothing.mjs'), 'export const x = 1;');
    await expect(loadExternalPlugins(['./missing.ts'], dir)).rejects.toThrow('cannot load "./missing.ts"');
    await expect(loadExternalPlugins(['./nothing.mjs'], dir)).rejects.toThrow('does not export a plugin');
  });
});
