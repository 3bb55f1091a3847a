import type { Logger } from 'pino';
import type { LoadedConfig } from '../config/load.js';
import { formatIssues } from '../config/format-issues.js';
import { ConfigError } from '../errors.js';
import { compileMapping } from './compile-mapping.js';
import type { CompiledMapping } from './compiled-mapping.js';
import type { ActionContext } from './hook-action.js';
import { listMappingFiles, readMappingFile } from './mapping-files.js';
import { mappingSchema, type Mapping } from './mapping-schema.js';
import { presetMappings } from './preset-mappings.js';
import { TransformLoader } from './transform-loader.js';

export type MappingContext = Pick<ActionContext, 'config' | 'channelNames'> & {
  /** where per-request mapping failures are logged (mapping id and reason, never the body) */
  logger?: Logger;
};

/** A mapping as found, before compiling: raw data and where it came from, for fault messages. */
export interface MappingSource {
  origin: string;
  raw: unknown;
}

/** `hooks.mappings`, then every file of `hooks.mappingsDir` in name order, then the enabled presets. */
export function collectMappingSources(loaded: LoadedConfig): MappingSource[] {
  const sources: MappingSource[] = loaded.config.hooks.mappings.map((raw, i) => ({ origin: `hooks.mappings[${i}]`, raw }));
  for (const file of listMappingFiles(loaded.config.hooks.mappingsDir)) {
    readMappingFile(file).forEach((raw, i) => sources.push({ origin: `${file}[${i}]`, raw }));
  }
  return [...sources, ...presetMappings(loaded)];
}

/** Validates and compiles mapping sources; every fault of every mapping is reported at once. */
export async function compileMappingSources(sources: MappingSource[], loaded: LoadedConfig, ctx: MappingContext): Promise<CompiledMapping[]> {
  const faults: string[] = [];
  const seen = new Map<string, string>();
  const transforms = new TransformLoader(loaded.config.hooks.transformsDir);
  const compiled: CompiledMapping[] = [];
  for (const [index, source] of sources.entries()) {
    const parsed = mappingSchema.safeParse(source.raw);
    if (!parsed.success) {
      faults.push(...formatIssues(parsed.error.issues, source.origin));
      continue;
    }
    const mapping: Mapping & { id: string } = { ...parsed.data, id: parsed.data.id ?? `mapping-${index + 1}` };
    const label = `mapping "${mapping.id}" (${source.origin})`;
    const earlier = seen.get(mapping.id);
    if (earlier) faults.push(`${label}: duplicate mapping id (also used by ${earlier})`);
    seen.set(mapping.id, source.origin);
    const own: string[] = [];
    const deps = { ctx, transforms, transformTimeoutMs: loaded.config.hooks.transformTimeoutMs, logger: ctx.logger };
    compiled.push(await compileMapping(mapping, deps, own));
    faults.push(...own.map((f) => `${label}: ${f}`));
  }
  if (faults.length) throw new ConfigError(faults);
  return compiled;
}

/**
 * Resolves every configured mapping once, at load: `hooks.mappings`, then the files of
 * `hooks.mappingsDir`, then the enabled presets. A fault throws ConfigError naming the mapping.
 */
export async function resolveMappings(loaded: LoadedConfig, ctx: MappingContext): Promise<CompiledMapping[]> {
  return compileMappingSources(collectMappingSources(loaded), loaded, ctx);
}
