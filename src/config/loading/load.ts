import path from 'node:path';
import { ConfigError } from '../../errors.js';
import { buildConfigSchema, type ConfigSection } from '../sections/build-schema.js';
import { CONFIG_PARSE } from '../sections/defaults-of.js';
import { formatIssues } from './format-issues.js';
import { withMappingId } from './mapping-fault.js';
import { expandHome } from './home-path.js';
import { transformsFolder } from '../transforms-folder.js';
import type { HeraldConfig } from '../schema.js';

export { readConfigFile } from './parse-file.js';

/** The third-party plugin specs of a config value (`plugins: [...]`), read before validation. */
export function pluginSpecs(value: unknown): string[] {
  const list = (value as { plugins?: unknown } | null)?.plugins;
  return Array.isArray(list) ? list.filter((p): p is string => typeof p === 'string') : [];
}

export interface ParseConfigOptions {
  /** the extensions' sections (plugins), mounted into the schema */
  sections: ConfigSection[];
  /** faults found earlier (missing variables): reported together with the schema's */
  faults?: string[];
}

/**
 * Validates an env-substituted config value against the core schema and the given sections, and
 * resolves its paths against the config file's folder. Throws ConfigError with every fault.
 */
export function parseConfig(value: unknown, file: string, options: ParseConfigOptions): HeraldConfig {
  const faults = [...(options.faults ?? [])];
  const parsed = buildConfigSchema(options.sections).safeParse(value, CONFIG_PARSE);
  if (!parsed.success) {
    // a key whose variable is missing is already reported; its empty stand-in is not a second fault
    const unset = new Set(faults.map((f) => f.slice(0, f.indexOf(': '))));
    const mappings = (value as { hooks?: { mappings?: unknown } } | null)?.hooks?.mappings;
    faults.push(...formatIssues(parsed.error.issues).filter((f) => !unset.has(f.slice(0, f.indexOf(': ')))).map((f) => withMappingId(f, mappings)));
  }
  if (!parsed.success || faults.length) throw new ConfigError(faults.map((f) => `${file}: ${f}`));
  const transforms = transformsFolder(path.dirname(path.resolve(file)), (parsed.data as HeraldConfig).hooks.transformsDir);
  if (transforms.fault) throw new ConfigError([`${file}: ${transforms.fault}`]);
  return resolvePaths(parsed.data as HeraldConfig, path.dirname(file), transforms.dir);
}

/** Relative paths in the config are relative to the config file's folder, not the cwd; `~/` is the home folder. */
function resolvePaths(config: HeraldConfig, dir: string, transformsDir: string): HeraldConfig {
  const at = (p: string) => (p === ':memory:' ? p : path.resolve(dir, expandHome(p)));
  return {
    ...config,
    storage: 'sqlite' in config.storage ? { sqlite: at(config.storage.sqlite) } : config.storage,
    hooks: { ...config.hooks, mappingsDir: at(config.hooks.mappingsDir), transformsDir },
  };
}
