import type { HeraldConfig } from '../../config/schema.js';
import { substituteEnv } from '../../config/loading/env-substitution.js';
import { formatIssues } from '../../config/loading/format-issues.js';
import { ConfigError } from '../../errors.js';
import { compileMapping } from '../compile-mapping.js';
import { checkExpressions } from '../templates/jsonata-expression.js';
import type { CompiledMapping } from '../compiled-mapping.js';
import { listMappingFiles, readMappingFile } from './mapping-files.js';
import { presetDuplicateAdvice, shadowPresetPaths } from './preset-shadowing.js';
import { mappingSchema, type Mapping } from '../../config/sections/mapping-schema.js';
import { InProcessTransforms } from '../transforms/in-process-transforms.js';
import { TransformLoader } from '../transforms/transform-loader.js';
import { isModelAllowed, resolveModelRef } from '../../models/model-refs.js';
import type { MappingContext } from '../mapping-context.js';
import type { MappingSource } from './mapping-source.js';

/**
 * What resolving needs of a loaded config: its values and the mapping data of the enabled presets
 * (the plugin registry gives it; mappings know no plugins).
 */
export interface MappingInputs {
  config: HeraldConfig;
  plugins: { presetMappings(config: HeraldConfig): { origin: string; raw: unknown; preset: true }[] };
}

/**
 * `hooks.mappings`, then every file of `hooks.mappingsDir` in name order, then the enabled presets,
 * less the preset mappings of a path your mappings serve (each shadowed path is a note).
 */
export async function collectMappingSources(loaded: MappingInputs, notes?: string[]): Promise<MappingSource[]> {
  const sources: MappingSource[] = loaded.config.hooks.mappings.map((raw, i) => ({ origin: `hooks.mappings[${i}]`, raw, parsed: true }));
  for (const file of listMappingFiles(loaded.config.hooks.mappingsDir)) {
    (await readMappingFile(file)).forEach((raw, i) => sources.push({ origin: `${file}[${i}]`, raw, substituteAuthEnv: true }));
  }
  return shadowPresetPaths([...sources, ...loaded.plugins.presetMappings(loaded.config)], notes);
}

/** Validates and compiles mapping sources; every fault of every mapping is reported at once. */
export async function compileMappingSources(sources: MappingSource[], loaded: Pick<MappingInputs, 'config'>, ctx: MappingContext): Promise<CompiledMapping[]> {
  const faults: string[] = [];
  const seen = new Map<string, string>();
  const transforms = new TransformLoader(loaded.config.hooks.transformsDir);
  const runner = ctx.transformRunner ?? new InProcessTransforms();
  const compiled: CompiledMapping[] = [];
  const labels = new Map<CompiledMapping, string>();
  // the `match.when` predicates, checked together before each mapping compiles its own
  checkExpressions(sources.flatMap((source) => {
    const when = (source.raw as { match?: { when?: unknown } } | null)?.match?.when;
    return typeof when === 'string' ? [when] : [];
  }));
  for (const [index, source] of sources.entries()) {
    const parsed = source.parsed
      ? { success: true as const, data: source.raw as Mapping }
      : mappingSchema.safeParse(source.substituteAuthEnv ? withAuthEnv(source.raw, source.origin, faults) : source.raw);
    if (!parsed.success) {
      const id = (source.raw as { id?: unknown } | null)?.id;
      faults.push(...formatIssues(parsed.error.issues, typeof id === 'string' ? `mapping "${id}" (${source.origin})` : source.origin));
      continue;
    }
    const mapping: Mapping & { id: string } = { ...parsed.data, id: parsed.data.id ?? `mapping-${index + 1}` };
    const label = `mapping "${mapping.id}" (${source.origin})`;
    if (source.preset && mapping.model !== undefined && !mapping.model.includes('{{')) {
      const known = resolveModelRef(mapping.model, loaded.config) !== undefined;
      if (!known || !isModelAllowed(mapping.model, loaded.config)) {
        ctx.warnings?.push(`${label}: model "${mapping.model}" ${known ? 'is not in agents.defaults.models' : 'is unknown'}: ignored, runs use the agent's model (OpenClaw ignores a disallowed preset default too)`);
        delete mapping.model;
      }
    }
    const earlier = seen.get(mapping.id);
    if (earlier) faults.push(`${label}: duplicate mapping id (also used by ${earlier})${presetDuplicateAdvice(source.origin, earlier)}`);
    seen.set(mapping.id, source.origin);
    const own: string[] = [];
    const notes: string[] = [];
    const deps = { ctx, transforms, runner, transformTimeoutMs: loaded.config.hooks.transformTimeoutMs, logger: ctx.logger };
    const one = await compileMapping(mapping, deps, own, notes);
    ctx.warnings?.push(...notes.map((w) => `${label}: ${w}`));
    one.origin = source.origin;
    compiled.push(one);
    labels.set(one, label);
    faults.push(...own.map((f) => `${label}: ${f}`));
  }
  faults.push(...mixedAuthFaults(compiled, labels));
  if (faults.length) throw new ConfigError(faults);
  return compiled;
}

/** `${ENV}` in a mapping file's `auth` (its secret), substituted like every config string. */
function withAuthEnv(raw: unknown, origin: string, faults: string[]): unknown {
  if (!raw || typeof raw !== 'object' || !('auth' in raw)) return raw;
  return { ...raw, auth: substituteEnv((raw as { auth: unknown }).auth, process.env, faults, `${origin}.auth`) };
}

/**
 * A request admitted by its signature is handled only by the mappings of its path that declare
 * an auth it satisfies; a path where some mappings declare auth and others do not would answer
 * 404 for the signed events of the others. Refused at start instead.
 */
function mixedAuthFaults(compiled: CompiledMapping[], labels: Map<CompiledMapping, string>): string[] {
  const faults: string[] = [];
  // the first signed mapping of each path, found in one pass (a scan per mapping would be quadratic in their number)
  const signedByPath = new Map<string, CompiledMapping>();
  for (const mapping of compiled) {
    if (mapping.path !== undefined && mapping.signature && !signedByPath.has(mapping.path)) signedByPath.set(mapping.path, mapping);
  }
  for (const mapping of compiled) {
    if (mapping.path === undefined || mapping.signature) continue;
    const signed = signedByPath.get(mapping.path);
    if (signed) {
      faults.push(`${labels.get(mapping)}: auth: mapping "${signed.id}" of match.path "${mapping.path}" declares auth, so every mapping of that path must (a YAML anchor shares one block)`);
    }
  }
  return faults;
}

/**
 * Resolves every configured mapping once, at load: `hooks.mappings`, then the files of
 * `hooks.mappingsDir`, then the enabled presets. A fault throws ConfigError naming the mapping.
 */
export async function resolveMappings(loaded: MappingInputs, ctx: MappingContext): Promise<CompiledMapping[]> {
  return compileMappingSources(await collectMappingSources(loaded, ctx.notes), loaded, ctx);
}
