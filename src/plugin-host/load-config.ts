import path from 'node:path';
import { checkConfig, checkHookTokenStrength } from '../config/checks/checks.js';
import { substituteEnv } from '../config/loading/env-substitution.js';
import { parseConfig, pluginSpecs, readConfigFile } from '../config/loading/load.js';
import type { HeraldConfig } from '../config/schema.js';
import { ConfigError } from '../errors.js';
import { modelKeyWarnings } from '../models/model-keys.js';
import { checkEmbeddingsModel } from '../models/embeddings/embeddings-endpoint.js';
import { checkModelRefs } from '../models/model-refs.js';
import type { PluginSource } from '../plugin-sdk/sdk.js';
import { PluginRegistry, loadExternalPlugins } from './registry.js';

export interface LoadedConfig {
  config: HeraldConfig;
  file: string;
  dir: string;
  plugins: PluginRegistry;
  /** what loads but deserves attention (a short token on loopback, a missing provider key, ...): printed by config check, logged by serve */
  warnings: string[];
}

export interface LoadConfigOptions {
  /** the built-in plugins: the CLI hands in the listings of plugins/listings.ts, each loaded only when the config uses it */
  builtins: PluginSource[];
  env?: NodeJS.ProcessEnv;
}

/** Reads, substitutes, validates and resolves a config file. Throws ConfigError with every fault. */
export async function loadConfigFile(file: string, options: LoadConfigOptions): Promise<LoadedConfig> {
  const absolute = path.resolve(file);
  return loadConfigValue(await readConfigFile(absolute), absolute, options);
}

/**
 * The config with its plugins: the third-party plugins it names, and the built-ins it uses, are
 * loaded first, because their sections are part of the schema the file is checked against.
 */
export async function loadConfigValue(raw: unknown, file: string, options: LoadConfigOptions): Promise<LoadedConfig> {
  const dir = path.dirname(file);
  const faults: string[] = [];
  // a missing variable does not stop the check: every fault of the file is reported at once
  const value = substituteEnv(raw ?? {}, options.env ?? process.env, faults);
  const plugins = new PluginRegistry([...options.builtins, ...(await loadExternalPlugins(pluginSpecs(value), dir))]);
  await plugins.loadUsedBy(value);
  const config = parseConfig(value, file, { sections: plugins.configSections(), faults });
  const semantic = [...checkConfig(config), ...checkModelRefs(config), ...checkEmbeddingsModel(config), ...checkPresets(config, plugins)];
  if (semantic.length) throw new ConfigError(semantic.map((f) => `${file}: ${f}`));
  const warnings = [...checkHookTokenStrength(config).warnings, ...modelKeyWarnings(config, options.env ?? process.env), ...defaultAgentWarnings(config)];
  return { config, file, dir, plugins, warnings };
}

function checkPresets(config: HeraldConfig, plugins: PluginRegistry): string[] {
  return plugins.enabledPresets(config).faults;
}

/** OpenClaw takes the first agent marked default; a second mark is ignored, and said so */
function defaultAgentWarnings(config: HeraldConfig): string[] {
  const marked = config.agents.list.flatMap((agent, i) => (agent.default ? [i] : []));
  return marked.slice(1).map((i) => `agents.list[${i}].default: ignored, agents.list[${marked[0]}] ("${config.agents.list[marked[0]!]!.id}") is already the default agent`);
}
