import type { HeraldConfig } from '../config/schema.js';
import { configuredModelRefs, resolveModelRef } from './model-refs.js';
import { catalogueProvider } from './providers/provider-catalogue.js';

/**
 * The environment variable a ref's provider needs and lacks, if any: only catalogue providers
 * without a `models.providers` entry read a key from the environment.
 */
export function missingKeyOf(ref: string, config: Pick<HeraldConfig, 'models' | 'agents'>, env: NodeJS.ProcessEnv = process.env): { provider: string; keyEnv: string } | undefined {
  const resolved = resolveModelRef(ref, config);
  if (!resolved || Object.hasOwn(config.models.providers, resolved.provider)) return undefined;
  const entry = catalogueProvider(resolved.provider);
  if (!entry?.keyEnv || env[entry.keyEnv]) return undefined;
  return { provider: resolved.provider, keyEnv: entry.keyEnv };
}

/** The sentence both `config check` and a failed run say, so the fix reads the same everywhere. */
export function missingKeyMessage(ref: string, missing: { provider: string; keyEnv: string }): string {
  return `model "${ref}" needs ${missing.keyEnv}, which is not set (set it, or configure models.providers.${missing.provider})`;
}

/** Warnings (not faults: herald still starts) for configured refs whose provider key is missing. */
export function modelKeyWarnings(config: HeraldConfig, env: NodeJS.ProcessEnv = process.env): string[] {
  const warnings: string[] = [];
  for (const { ref, key } of configuredModelRefs(config)) {
    const missing = missingKeyOf(ref, config, env);
    if (missing) warnings.push(`${key}: ${missingKeyMessage(ref, missing)}; runs on it will fail`);
  }
  return warnings;
}
