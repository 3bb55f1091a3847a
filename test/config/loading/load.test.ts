import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfigFile, loadConfigValue } from '../../helpers/builtins.js';
import { configFaults } from '../../helpers/config-faults.js';
import { API_KEY, baseConfig, GATEWAY_TOKEN, HOOK_TOKEN, tempDir } from '../../helpers/start-herald.js';

function faultsOf(value: unknown, env: NodeJS.ProcessEnv = {}): Promise<string[]> {
  return configFaults(loadConfigValue(value, path.join(tempDir(), 'herald.json'), { env }));
}

describe('config loading', () => {
  it('loads the same settings from .json, .json5 and .yaml', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'a.json'), JSON.stringify({ gateway: { port: 9001 }, heartbeat: { every: '5m' } }));
    fs.writeFileSync(path.join(dir, 'b.json5'), "// comment\n{ gateway: { port: 9001, }, heartbeat: { every: '5m' } }");
    fs.writeFileSync(path.join(dir, 'c.yaml'), 'gateway:\n  port: 9001\nheartbeat:\n  every: 5m\n');
    fs.writeFileSync(path.join(dir, 'd.yml'), 'gateway: { port: 9001 }\nheartbeat: { every: 5m }\n');
    for (const name of ['a.json', 'b.json5', 'c.yaml', 'd.yml']) {
      const { config } = await loadConfigFile(path.join(dir, name));
      expect(config.gateway.port, name).toBe(9001);
      expect(config.heartbeat.every).toBe('5m');
      expect(config.gateway.host).toBe('127.0.0.1');
      expect(config.hooks).toMatchObject({ enabled: false, path: '/hooks', maxBodyBytes: 262144 });
      expect(config.agents.list).toEqual([{ id: 'main', name: 'Main' }]);
      expect(config.agents.defaults.model).toEqual({ primary: 'embedded/extractive', fallbacks: [] });
    }
  });

  it('names the file and the problem for unreadable or unparsable files', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'bad.json5'), '{ gateway: ');
    await expect(loadConfigFile(path.join(dir, 'bad.json5'))).rejects.toThrow(/bad\.json5: not valid JSON5/);
    await expect(loadConfigFile(path.join(dir, 'missing.yaml'))).rejects.toThrow(/missing\.yaml: no such config file\. Create one: `herald serve --config .*missing\.yaml` writes a starter config/);
    fs.writeFileSync(path.join(dir, 'x.toml'), '');
    await expect(loadConfigFile(path.join(dir, 'x.toml'))).rejects.toThrow(/unsupported config format/);
  });

  it('substitutes ${ENV} in any string and names a missing variable with its key', async () => {
    const { config } = await loadConfigValue(
      baseConfig({ hooks: { token: '${HOOK_SECRET}', path: '/${PREFIX}/hooks' }, models: { providers: { local: { api: 'openai', baseUrl: 'http://127.0.0.1:1/v1', apiKey: 'Bearer-$${LITERAL}' } } } }),
      path.join(tempDir(), 'herald.json'),
      { env: { HOOK_SECRET: 'from-the-environment-0123', PREFIX: 'in' } },
    );
    expect(config.hooks.token).toBe('from-the-environment-0123');
    expect(config.hooks.path).toBe('/in/hooks');
    expect(config.models.providers.local!.apiKey).toBe('Bearer-${LITERAL}');

    const faults = await faultsOf(baseConfig({ hooks: { token: '${NOT_SET_ANYWHERE}' } }));
    expect(faults).toEqual([expect.stringMatching(/hooks\.token: environment variable NOT_SET_ANYWHERE is not set$/)]);
  });

  it('names unknown keys with their full path', async () => {
    const faults = await faultsOf({
      gatway: {},
      hooks: { enabled: false, tokn: 'x' },
      agents: { list: [{ id: 'main', modle: 'x' }] },
      models: { providers: { local: { api: 'openai', baseUrl: 'http://127.0.0.1/v1', key: 'x' } } },
    });
    expect(faults).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/: gatway: unknown key$/),
        expect.stringMatching(/: hooks\.tokn: unknown key$/),
        expect.stringMatching(/: agents\.list\[0\]\.modle: unknown key$/),
        expect.stringMatching(/: models\.providers\.local\.key: unknown key$/),
      ]),
    );
  });

  it('reports every fault of a file at once, each naming its key', async () => {
    const faults = await faultsOf({ gateway: { port: 'eighty' }, heartbeat: { every: 'often' }, hooks: { token: '${MISSING_TOKEN}' }, extra: 1 });
    expect(faults.length).toBe(4);
    for (const key of ['gateway.port', 'heartbeat.every', 'hooks.token', 'extra']) {
      expect(faults.some((f) => f.includes(`${key}:`)), key).toBe(true);
    }
  });

  it('names platform.knowledge.workerMemoryMb when it is below what a parse worker needs', async () => {
    const faults = await faultsOf({ platform: { knowledge: { workerMemoryMb: 32 } } });
    expect(faults).toEqual([expect.stringMatching(/: platform\.knowledge\.workerMemoryMb: .*64/)]);
    expect(await faultsOf({ platform: { knowledge: { workerMemoryMb: 128 } } })).toEqual([]);
  });

  it('resolves relative paths against the config file folder, not the cwd', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'conf', 'herald.yaml');
    fs.mkdirSync(path.dirname(file));
    fs.writeFileSync(file, 'storage:\n  sqlite: ./state/h.db\nhooks:\n  mappingsDir: ../maps\n');
    const { config } = await loadConfigFile(file);
    expect(config.storage).toEqual({ sqlite: path.join(dir, 'conf', 'state', 'h.db') });
    expect(config.hooks.mappingsDir).toBe(path.join(dir, 'maps'));
    expect(config.hooks.transformsDir).toBe(path.join(dir, 'conf', 'transforms'));
    const memory = await loadConfigValue({ storage: { sqlite: ':memory:' } }, file);
    expect(memory.config.storage).toEqual({ sqlite: ':memory:' });
  });

  describe('start refusals, each naming the key', () => {
    it('hooks.enabled without hooks.token', async () => {
      expect(await faultsOf({ hooks: { enabled: true } })).toEqual([expect.stringMatching(/hooks\.token: required when hooks\.enabled is true/)]);
    });
    it('hooks.path of /', async () => {
      expect(await faultsOf(baseConfig({ hooks: { path: '/' } }))).toEqual([expect.stringMatching(/hooks\.path: must not be "\/"/)]);
      // written loosely, as OpenClaw accepts it: normalised, not refused (see openclaw-compat.test.ts)
      expect(await faultsOf(baseConfig({ hooks: { path: 'hooks' } }))).toEqual([]);
    });
    it('a hook token equal to the gateway token', async () => {
      expect(await faultsOf(baseConfig({ hooks: { token: GATEWAY_TOKEN } }))).toEqual([expect.stringMatching(/hooks\.token: must differ from gateway\.auth\.token/)]);
    });
    it('a hook token equal to a platform API key (plain or hashed)', async () => {
      expect(await faultsOf(baseConfig({ hooks: { token: API_KEY } }))).toEqual([expect.stringMatching(/hooks\.token: must differ from platform\.apiKeys\[0\]/)]);
      const { createHash } = await import('node:crypto');
      const keyHash = createHash('sha256').update(HOOK_TOKEN).digest('hex');
      expect(await faultsOf(baseConfig({ platform: { apiKeys: [{ name: 'hashed', keyHash }] } }))).toEqual([
        expect.stringMatching(/hooks\.token: must differ from platform\.apiKeys\[0\]/),
      ]);
    });
    it('an unknown default model', async () => {
      expect(await faultsOf(baseConfig({ agents: { defaults: { model: 'nowhere/x' } } }))).toEqual([expect.stringMatching(/agents\.defaults\.model: unknown model/)]);
      expect(await faultsOf(baseConfig({ agents: { defaults: { model: 'constructor/x' } } }))).toEqual([expect.stringMatching(/agents\.defaults\.model: unknown model/)]);
    });
    it('a hooks.path that is a route pattern, not a plain path', async () => {
      for (const bad of ['/*', '/hooks/:name', '/hooks/*', '/a b']) {
        expect(await faultsOf(baseConfig({ hooks: { path: bad } })), bad).toEqual([expect.stringMatching(/hooks\.path: a path whose segments are made of letters, digits and \. _ ~ -/)]);
      }
      expect(await faultsOf(baseConfig({ hooks: { path: '/webhooks/v2/' } }))).toEqual([]);
    });
    it('a default run time limit past what a timer can wait', async () => {
      expect(await faultsOf(baseConfig({ agents: { defaults: { timeoutSeconds: 3_000_000 } } }))).toEqual([
        expect.stringMatching(/agents\.defaults\.timeoutSeconds: /),
      ]);
    });
  });
});
