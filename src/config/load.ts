import path from 'node:path';
import { ConfigError } from '../errors.js';
import { PluginRegistry, loadBuiltinPlugins, loadExternalPlugins } from '../plugins/registry.js';
import type { PluginDefinition } from '../plugins/sdk.js';
import { buildConfigSchema } from './build-schema.js';
import { checkConfig, checkHookTokenStrength } from './checks.js';
import { expandHome } from './home-path.js';
import { substituteEnv } from './env-substitution.js';
import { formatIssues } from './format-issues.js';
import { parseStructuredFile } from './parse-file.js';
import type { HeraldConfig } from './schema.js';
import { checkModelRefs } from '../models/model-refs.js';
import { modelKeyWarnings } from '../models/model-keys.js';

export interface LoadedConfig {
  config: HeraldConfig;
  /** the raw, env-substituted section of each plugin, parsed by the plugin's schema */
  file: string;
  dir: string;
  plugins: PluginRegistry;
  /** what loads but deserves attention (a short token on loopback, a missing provider key, ...): printed by config check, logged by serve */
  warnings: string[];
}

export interface LoadConfigOptions {
  env?: NodeJS.ProcessEnv;
  /** the built-in plugins; discovered from plugins/index.ts when omitted */
  builtins?: PluginDefinition[];
}

/** Reads, substitutes, validates and resolves a config file. Throws ConfigError with every fault. */
export async function loadConfigFile(file: string, options: LoadConfigOptions = {}): Promise<LoadedConfig> {
  const absolute = path.resolve(file);
  const raw = parseStructuredFile(absolute);
  return loadConfigValue(raw, absolute, options);
}

export async function loadConfigValue(raw: unknown, file: string, options: LoadConfigOptions = {}): Promise<LoadedConfig> {
  const dir = path.dirname(file);
  const faults: string[] = [];
  // a missing variable does not stop the check: every fault of the file is reported at once
  const value = substituteEnv(raw ?? {}, options.env ?? process.env, faults);

  const external = Array.isArray((value as { plugins?: unknown }).plugins)
    ? ((value as { plugins: unknown[] }).plugins.filter((p) => typeof p === 'string') as string[])
    : [];
  const builtins = options.builtins ?? (await loadBuiltinPlugins());
  const plugins = new PluginRegistry([...builtins, ...(await loadExternalPlugins(external, dir))]);

  const parsed = buildConfigSchema(plugins.plugins).safeParse(value);
  if (!parsed.success) {
    // a key whose variable is missing is already reported; its empty stand-in is not a second fault
    const unset = new Set(faults.map((f) => f.slice(0, f.indexOf(': '))));
    faults.push(...formatIssues(parsed.error.issues).filter((f) => !unset.has(f.slice(0, f.indexOf(': ')))));
  }
  if (!parsed.success || faults.length) throw new ConfigError(faults.map((f) => `${file}: ${f}`));
  const config = resolvePaths(parsed.data as HeraldConfig, dir);

  const semantic = [...checkConfig(config), ...checkModelRefs(config), ...checkPresets(config, plugins)];
  if (semantic.length) throw new ConfigError(semantic.map((f) => `${file}: ${f}`));
  const warnings = [...checkHookTokenStrength(config).warnings, ...modelKeyWarnings(config, options.env ?? process.env), ...defaultAgentWarnings(config)];
  return { config, file, dir, plugins, warnings };
}

/** Relative paths in the config are relative to the config file's folder, not the cwd; `~/` is the home folder. */
function resolvePaths(config: HeraldConfig, dir: string): HeraldConfig {
  const at = (p: string) => (p === ':memory:' ? p : path.resolve(dir, expandHome(p)));
  return {
    ...config,
    storage: { ...config.storage, sqlite: at(config.storage.sqlite) },
    hooks: { ...config.hooks, mappingsDir: at(config.hooks.mappingsDir), transformsDir: at(config.hooks.transformsDir) },
  };
}

function checkPresets(config: HeraldConfig, plugins: PluginRegistry): string[] {
  const faults: string[] = [];
  config.hooks.presets.forEach((id, i) => {
    const plugin = plugins.get(id);
    if (!plugin || !plugin.roles.includes('preset')) {
      const known = plugins.plugins.filter((p) => p.roles.includes('preset')).map((p) => p.id);
      faults.push(`hooks.presets[${i}]: unknown preset "${id}" (known: ${known.join(', ') || 'none'})`);
    }
  });
  return faults;
}

/** OpenClaw takes the first agent marked default; a second mark is ignored, and said so */
function defaultAgentWarnings(config: HeraldConfig): string[] {
  const marked = config.agents.list.flatMap((agent, i) => (agent.default ? [i] : []));
  return marked.slice(1).map((i) => `agents.list[${i}].default: ignored, agents.list[${marked[0]}] ("${config.agents.list[marked[0]!]!.id}") is already the default agent`);
}
