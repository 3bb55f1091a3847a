import type { HeraldConfig } from '../../config/schema.js';
import { HeraldError } from '../../errors.js';
import type { EmbeddingsEndpoint } from '../../models/embeddings/embeddings-client.js';
import { embeddingsEndpointOf } from '../../models/embeddings/embeddings-endpoint.js';
import { missingKeyMessage, missingKeyOf } from '../../models/model-keys.js';
import { resolveModelRef } from '../../models/model-refs.js';

type ServedConfig = Pick<HeraldConfig, 'models' | 'platform' | 'agents'>;

/** the refs POST /v1/embeddings serves: platform.embeddings.models and the knowledge's embeddings model, resolved */
export function servedEmbeddingsRefs(config: ServedConfig): string[] {
  const named = [...config.platform.embeddings.models, ...(config.platform.knowledge.embeddings ? [config.platform.knowledge.embeddings.model] : [])];
  return [...new Set(named.flatMap((ref) => resolveModelRef(ref, config)?.ref ?? []))];
}

/**
 * The endpoint a request's `model` names: a served ref, an alias of one, or the bare model name
 * of exactly one (`text-embedding-3-small`, so a client written for OpenAI needs only its base URL
 * changed). Anything else is 404 `model_not_found`, as OpenAI answers an unknown model.
 */
export function embeddingsModelFor(config: ServedConfig, requested: string, env: NodeJS.ProcessEnv = process.env): EmbeddingsEndpoint {
  const served = servedEmbeddingsRefs(config);
  const wanted = resolveModelRef(requested, config)?.ref;
  const byName = served.filter((ref) => ref.slice(ref.indexOf('/') + 1) === requested);
  const ref = served.find((r) => r === wanted) ?? (byName.length === 1 ? byName[0] : undefined);
  if (!ref) {
    const message = served.length
      ? `The model "${requested}" is not an embeddings model of this herald (it serves ${served.map((r) => `"${r}"`).join(', ')}).`
      : `The model "${requested}" does not exist: no embeddings model is configured (platform.embeddings.models).`;
    throw new HeraldError('HERALD_NOT_FOUND', message, { param: 'model', openaiCode: 'model_not_found' });
  }
  const missing = missingKeyOf(ref, config, env);
  if (missing) throw new HeraldError('HERALD_MODEL_FAILED', missingKeyMessage(ref, missing));
  const endpoint = embeddingsEndpointOf(ref, config, env);
  if (!endpoint) throw new HeraldError('HERALD_NOT_FOUND', `The model "${requested}" has no embeddings endpoint.`, { param: 'model', openaiCode: 'model_not_found' });
  return endpoint;
}
