import type { HeraldConfig } from '../../config/schema.js';
import type { EmbeddingsEndpoint } from './embeddings-client.js';
import { EMBEDDED_PROVIDER, resolveModelRef } from '../model-refs.js';
import { catalogueProvider } from '../providers/provider-catalogue.js';

type EmbeddingsConfig = Pick<HeraldConfig, 'models' | 'platform'>;

/** the faults of platform.knowledge.embeddings.model and platform.embeddings.models: each must name an OpenAI-compatible provider */
export function checkEmbeddingsModel(config: EmbeddingsConfig): string[] {
  const check = (ref: string, key: string): string[] => {
    const resolved = resolveModelRef(ref, config);
    if (!resolved) return [`${key}: unknown model "${ref}" (use <provider>/<model> with a provider of models.providers or the built-in catalogue)`];
    if (resolved.provider === EMBEDDED_PROVIDER) return [`${key}: the embedded model has no embeddings; name an OpenAI-compatible provider's model, e.g. openai/text-embedding-3-small`];
    return [];
  };
  const ref = config.platform.knowledge.embeddings?.model;
  return [
    ...(ref === undefined ? [] : check(ref, 'platform.knowledge.embeddings.model')),
    ...config.platform.embeddings.models.flatMap((served, i) => check(served, `platform.embeddings.models[${i}]`)),
  ];
}

/**
 * Where platform.knowledge.embeddings sends its `POST /embeddings`: the provider's base URL and
 * key (models.providers, else the catalogue with the key from its environment variable).
 * Undefined when no embeddings model is configured.
 */
export function embeddingsEndpoint(config: EmbeddingsConfig, env: NodeJS.ProcessEnv = process.env): EmbeddingsEndpoint | undefined {
  const ref = config.platform.knowledge.embeddings?.model;
  return ref === undefined ? undefined : embeddingsEndpointOf(ref, config, env);
}

/** where `ref`'s `POST /embeddings` goes; undefined when it names no OpenAI-compatible provider */
export function embeddingsEndpointOf(ref: string, config: EmbeddingsConfig, env: NodeJS.ProcessEnv = process.env): EmbeddingsEndpoint | undefined {
  const resolved = resolveModelRef(ref, config);
  if (resolved?.provider === EMBEDDED_PROVIDER) return undefined;
  if (!resolved) return undefined;
  const own = Object.hasOwn(config.models.providers, resolved.provider) ? config.models.providers[resolved.provider] : undefined;
  if (own) return { ref: resolved.ref, baseUrl: own.baseUrl, apiKey: own.apiKey, model: resolved.model };
  const entry = catalogueProvider(resolved.provider);
  if (!entry) return undefined;
  return { ref: resolved.ref, baseUrl: entry.baseUrl, apiKey: entry.keyEnv ? env[entry.keyEnv] : undefined, model: resolved.model };
}
