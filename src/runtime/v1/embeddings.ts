import type { HeraldConfig } from '../../config/schema.js';
import { requestEmbeddings, type EmbeddingsAnswer, type EmbeddingsCall } from '../../models/embeddings/embeddings-upstream.js';
import type { ApiPrincipal } from '../../accounts/api-keys.js';
import type { Budgets } from '../../accounts/budgets.js';
import { embeddingsModelFor } from './embeddings-models.js';
import { estimateTextsTokens } from '../../models/token-estimate.js';
import type { UsageRecorder } from '../../accounts/usage-recorder.js';

export interface EmbeddingsDeps {
  config: HeraldConfig;
  usage?: UsageRecorder;
  budgets?: Budgets;
}

/** for a provider that counts nothing: each input by the model's tokenizer, all in one task (token-estimate.ts) */
const estimatedUsage = async (input: string[], model: string) => {
  const tokens = await estimateTextsTokens(input, model);
  return { prompt_tokens: tokens, total_tokens: tokens };
};

/**
 * POST /v1/embeddings: the model asked for among those served (404 `model_not_found`), refused
 * while the key's budget is spent (429), its tokens counted against the key once answered.
 */
export async function createEmbeddings(deps: EmbeddingsDeps, principal: ApiPrincipal, model: string, call: EmbeddingsCall): Promise<EmbeddingsAnswer & { usage: NonNullable<EmbeddingsAnswer['usage']> }> {
  const endpoint = embeddingsModelFor(deps.config, model);
  if (deps.budgets && principal.budget) await deps.budgets.enforce([{ kind: 'key', name: principal.name, budget: principal.budget }]);
  const answer = await requestEmbeddings(endpoint, call);
  const usage = answer.usage ?? (await estimatedUsage(call.input, endpoint.ref));
  deps.usage?.record({ source: 'embeddings', model: endpoint.ref, keyName: principal.name, promptTokens: usage.prompt_tokens, completionTokens: 0, estimated: !answer.usage });
  return { ...answer, usage };
}
