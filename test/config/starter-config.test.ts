import fs from 'node:fs';
import path from 'node:path';
import JSON5 from 'json5';
import { describe, expect, it } from 'vitest';
import { loadConfigFile } from '../helpers/builtins.js';
import { generateSecrets, starterConfigText, starterConfigValue, writeStarterConfig } from '../../src/config/starter-config.js';
import { tempDir } from '../helpers/start-herald.js';

describe('starter config', () => {
  for (const name of ['herald.json5', 'herald.json', 'herald.yaml', 'herald.yml']) {
    it(`${name}: written in its own format, private, and a valid config with hooks on and the agent main`, async () => {
      const file = path.join(tempDir(), 'conf', name);
      const secrets = writeStarterConfig(file);
      expect(fs.statSync(file).mode & 0o077).toBe(0);
      const { config } = await loadConfigFile(file);
      expect(config.hooks).toMatchObject({ enabled: true, token: secrets.hookToken, path: '/hooks' });
      expect(config.gateway).toMatchObject({ host: '127.0.0.1', port: 8787, auth: { token: secrets.gatewayToken } });
      expect(config.platform.apiKeys).toEqual([{ name: 'default', key: secrets.apiKey }]);
      expect(config.agents.list.map((a) => a.id)).toEqual(['main']);
      expect(config.storage).toEqual({ sqlite: path.join(path.dirname(file), 'data', 'herald.db') });
      // the three secrets are fresh and distinct
      expect(new Set([secrets.hookToken, secrets.gatewayToken, secrets.apiKey]).size).toBe(3);
      expect(generateSecrets().hookToken).not.toBe(secrets.hookToken);
    });
  }

  it('the commented JSON5 text says the same as the plain data', () => {
    const secrets = generateSecrets();
    expect(JSON5.parse(starterConfigText(secrets))).toEqual(starterConfigValue(secrets));
  });

  it('never overwrites a file, and writes nothing for an unsupported extension', () => {
    const dir = tempDir();
    const existing = path.join(dir, 'herald.json5');
    fs.writeFileSync(existing, '{}');
    expect(() => writeStarterConfig(existing)).toThrow();
    expect(fs.readFileSync(existing, 'utf8')).toBe('{}');
    const toml = path.join(dir, 'herald.toml');
    expect(() => writeStarterConfig(toml)).toThrow(/unsupported config format/);
    expect(fs.existsSync(toml)).toBe(false);
  });
});
