import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfigFile, loadConfigValue } from '../helpers/builtins.js';
import { expandHome } from '../../src/config/loading/home-path.js';
import { ConfigError } from '../../src/errors.js';
import { configFaults } from '../helpers/config-faults.js';
import { extractiveAnswer } from '../../src/knowledge/searching/extractive-answer.js';
import { ModelRegistry } from '../../src/models/model-registry.js';
import { resolveModelRef } from '../../src/models/model-refs.js';
import { defaultAgent } from '../../src/config/default-agent.js';
import { baseConfig, tempDir } from '../helpers/start-herald.js';

const load = (value: unknown, env: NodeJS.ProcessEnv = {}) => loadConfigValue(value, path.join(tempDir(), 'herald.json'), { env });
function faultsOf(value: unknown): Promise<string[]> {
  return configFaults(load(value));
}

describe('OpenClaw config forms', () => {
  it('reads JSON5 in a .json file, and names line and column when it is neither', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'openclaw.json'), "// OpenClaw's file\n{ hooks: { enabled: true, token: 'shared-secret-0123456789', }, }\n");
    expect((await loadConfigFile(path.join(dir, 'openclaw.json'))).config.hooks.enabled).toBe(true);
    fs.writeFileSync(path.join(dir, 'broken.json'), '{ hooks: {\n  enabled: true,, }');
    await expect(loadConfigFile(path.join(dir, 'broken.json'))).rejects.toThrow(/broken\.json: not valid JSON: invalid character ',' \(line 2, column 17\)/);
  });

  it('expands ~ at the start of paths to the home folder', async () => {
    expect(expandHome('~/.openclaw/hooks', '/home/u')).toBe('/home/u/.openclaw/hooks');
    expect(expandHome('~', '/home/u')).toBe('/home/u');
    expect(expandHome('./x~', '/home/u')).toBe('./x~');
    expect(expandHome('~other/x', '/home/u')).toBe('~other/x');
    const home = (await import('node:os')).homedir();
    // where OpenClaw keeps its config: its transforms folder is inside the config's folder
    const value = baseConfig({ hooks: { transformsDir: '~/.openclaw/hooks/transforms', mappingsDir: '~/m' }, storage: { sqlite: '~/herald.db' } });
    const { config } = await loadConfigValue(value, path.join(home, '.openclaw', 'openclaw.json'), { env: {} });
    expect(config.hooks.transformsDir).toBe(path.join(home, '.openclaw/hooks/transforms'));
    expect(config.hooks.mappingsDir).toBe(path.join(home, 'm'));
    expect(config.storage).toEqual({ sqlite: path.join(home, 'herald.db') });
  });

  it("finds transforms where OpenClaw keeps them, and refuses a relative transformsDir leaving the config's folder, naming the key", async () => {
    const dir = tempDir();
    const configFile = path.join(dir, 'openclaw.json');
    // no ./transforms: OpenClaw's <config dir>/hooks/transforms is the default, and a relative name is looked up inside it
    fs.mkdirSync(path.join(dir, 'hooks', 'transforms', 'gmail'), { recursive: true });
    expect((await loadConfigValue(baseConfig({}), configFile)).config.hooks.transformsDir).toBe(path.join(dir, 'hooks', 'transforms'));
    expect((await loadConfigValue(baseConfig({ hooks: { transformsDir: 'gmail' } }), configFile)).config.hooks.transformsDir).toBe(path.join(dir, 'hooks', 'transforms', 'gmail'));
    // herald's own ./transforms wins when it is there
    fs.mkdirSync(path.join(dir, 'transforms'));
    expect((await loadConfigValue(baseConfig({}), configFile)).config.hooks.transformsDir).toBe(path.join(dir, 'transforms'));
    const outside = tempDir();
    fs.symlinkSync(outside, path.join(dir, 'linked'));
    for (const transformsDir of ['../elsewhere', 'linked', 'hooks/../../elsewhere']) {
      const error = await loadConfigValue(baseConfig({ hooks: { transformsDir } }), configFile).catch((e: unknown) => e);
      expect(error, transformsDir).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).faults[0]).toMatch(/hooks\.transformsDir: .* is outside the config file's folder/);
    }
    // an absolute folder is the operator's explicit choice (a container image's /app/transforms)
    expect((await loadConfigValue(baseConfig({ hooks: { transformsDir: outside } }), configFile)).config.hooks.transformsDir).toBe(outside);
  });

  it('normalises a loosely written hooks.path and still refuses /', async () => {
    for (const [given, expected] of [['hooks///', '/hooks'], ['hooks', '/hooks'], ['//in//hooks/', '/in/hooks'], [' /hooks ', '/hooks']]) {
      expect((await load(baseConfig({ hooks: { path: given } }))).config.hooks.path, given).toBe(expected);
    }
    for (const given of ['/', '///', '']) {
      expect(await faultsOf(baseConfig({ hooks: { path: given } })), given).toEqual([expect.stringMatching(/hooks\.path: must not be "\/"/)]);
    }
  });

  it('allows a short hook token on loopback with a warning, refuses it on any other host naming key and reason', async () => {
    const loopback = await load(baseConfig({ hooks: { token: 'shared-secret' } }));
    expect(loopback.warnings).toEqual([expect.stringMatching(/^hooks\.token: shorter than 16 characters; accepted because gateway\.host \(127\.0\.0\.1\) is loopback only/)]);
    expect((await load(baseConfig({ gateway: { host: '::1' }, hooks: { token: 'shared-secret' } }))).warnings).toHaveLength(1);
    expect(await faultsOf(baseConfig({ gateway: { host: '0.0.0.0' }, hooks: { token: 'shared-secret' } }))).toEqual([
      expect.stringMatching(/hooks\.token: shorter than 16 characters: refused because gateway\.host \(0\.0\.0\.0\) is reachable from other machines, where a short token can be guessed/),
    ]);
    expect(await faultsOf(baseConfig({ gateway: { host: '0.0.0.0' } }))).toEqual([]);
  });

  it('takes agents.list[].default as the default agent (the first marked; a second mark is a warning)', async () => {
    const { config, warnings } = await load(baseConfig({ agents: { list: [{ id: 'a' }, { id: 'b', default: true }, { id: 'c', default: true }] } }));
    expect(defaultAgent(config).id).toBe('b');
    expect(warnings).toEqual([expect.stringMatching(/agents\.list\[2\]\.default: ignored, agents\.list\[1\] \("b"\) is already the default agent/)]);
    expect(defaultAgent((await load(baseConfig({ agents: { list: [{ id: 'a' }, { id: 'b' }] } }))).config).id).toBe('a');
  });

  it('reads agents.defaults.model as a string or { primary, fallbacks }, and agents.defaults.models as a list or a map with aliases', async () => {
    expect((await load(baseConfig())).config.agents.defaults.model).toEqual({ primary: 'embedded/extractive', fallbacks: [] });
    const { config } = await load(
      baseConfig({
        agents: {
          defaults: {
            model: { primary: 'openai/gpt-5.2-mini', fallbacks: ['openrouter/meta-llama/llama-3.3-70b-instruct:free', 'embedded/extractive'] },
            models: { 'openai/gpt-5.2-mini': { alias: 'mini' }, 'embedded/extractive': {} },
          },
        },
      }),
      { OPENAI_API_KEY: 'k', OPENROUTER_API_KEY: 'k' },
    );
    expect(config.agents.defaults.model.fallbacks).toHaveLength(2);
    expect(config.agents.defaults.models).toEqual({ refs: ['openai/gpt-5.2-mini', 'embedded/extractive'], aliases: { mini: 'openai/gpt-5.2-mini' } });
    expect(resolveModelRef('mini', config)).toEqual({ provider: 'openai', model: 'gpt-5.2-mini', ref: 'openai/gpt-5.2-mini' });
    expect(resolveModelRef('openrouter/meta-llama/llama-3.3-70b-instruct:free', config)?.model).toBe('meta-llama/llama-3.3-70b-instruct:free');
    expect(await faultsOf(baseConfig({ agents: { defaults: { model: { primary: 'nowhere/x', fallbacks: ['nor/here'] } } } }))).toEqual([
      expect.stringMatching(/agents\.defaults\.model: unknown model "nowhere\/x"/),
      expect.stringMatching(/agents\.defaults\.model\.fallbacks\[0\]: unknown model "nor\/here"/),
    ]);
  });

  it('knows the well-known providers; a missing key is a warning at load and a clear error at run time; models.providers wins', async () => {
    const { config, warnings } = await load(baseConfig({ agents: { defaults: { model: 'groq/llama-3.3-70b-versatile' } } }));
    expect(warnings).toEqual([expect.stringMatching(/^agents\.defaults\.model: model "groq\/llama-3\.3-70b-versatile" needs GROQ_API_KEY, which is not set \(set it, or configure models\.providers\.groq\); runs on it will fail$/)]);
    const { provider } = new ModelRegistry(config, extractiveAnswer, {}).resolve('groq/llama-3.3-70b-versatile');
    await expect(provider.complete({ model: 'llama-3.3-70b-versatile', messages: [], purpose: 'run' })).rejects.toThrow(/needs GROQ_API_KEY, which is not set/);
    for (const ref of ['openai/gpt-5.2-mini', 'anthropic/claude-sonnet-4-5', 'mistral/mistral-small-latest', 'deepseek/deepseek-chat', 'ollama/llama3.2']) {
      expect(resolveModelRef(ref, config), ref).toBeDefined();
    }
    // ollama is local: no key, no warning
    expect((await load(baseConfig({ agents: { defaults: { model: 'ollama/llama3.2' } } }))).warnings).toEqual([]);
    // an explicit provider of the same name: its own URL and key, no environment needed
    const own = await load(baseConfig({ agents: { defaults: { model: 'openai/gpt-x' } }, models: { providers: { openai: { api: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-own' } } } }));
    expect(own.warnings).toEqual([]);
    expect(() => new ModelRegistry(own.config, extractiveAnswer, {}).resolve('openai/gpt-x')).not.toThrow();
  });

  it('checks the session-key policy at load with OpenClaw\'s answers', async () => {
    expect(await faultsOf(baseConfig({ hooks: { defaultSessionKey: 'ingress', allowedSessionKeyPrefixes: ['hook:'] } }))).toEqual([
      expect.stringMatching(/hooks\.defaultSessionKey: must match hooks\.allowedSessionKeyPrefixes$/),
    ]);
    expect(await faultsOf(baseConfig({ hooks: { allowedSessionKeyPrefixes: ['ci:'] } }))).toEqual([
      expect.stringMatching(/hooks\.allowedSessionKeyPrefixes: must include 'hook:' when hooks\.defaultSessionKey is unset$/),
    ]);
    expect(await faultsOf(baseConfig({ hooks: { allowedSessionKeyPrefixes: ['ci:', ' '], defaultSessionKey: 'CI:default' } }))).toEqual([]);
    expect(await faultsOf(baseConfig({ hooks: { allowedSessionKeyPrefixes: ['', '  '] } }))).toEqual([]);
  });
});
