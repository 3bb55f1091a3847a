import type { HeraldConfig } from '../../config/schema.js';
import { requestEmbeddings, type EmbeddingsAnswer, type EmbeddingsCall } from '../../models/embeddings/embeddings-upstream.js';
import type { ApiPrincipal } from '../../accounts/api-keys.js';
import type { Budgets } from '../../accounts/budgets.js';
import { embeddingsModelFor } from './embeddings-models.js';
import type { UsageRecorder } from '../../accounts/usage-recorder.js';

export interface EmbeddingsDeps {
  config: HeraldConfig;
  usage?: UsageRecorder;
  budgets?: Budgets;
}

/** words split by whitespace, as the embedded model counts, for a provider that counts nothing */
const estimatedUsage = (input: string[]) => {
  const words = input.reduce((n, s) => n + (s.match(/\S+/g) ?? []).length, 0);
  return { prompt_tokens: words, total_tokens: words };
};

/**
 * POST /v1/embeddings: the model asked for among those served (404 `model_not_found`), refused
 * while the key's budget is spent (429), its tokens counted against the key once answered.
 */
export async function createEmbeddings(deps: EmbeddingsDeps, principal: ApiPrincipal, model: string, call: EmbeddingsCall): Promise<EmbeddingsAnswer & { usage: NonNullable<EmbeddingsAnswer['usage']> }> {
  const endpoint = embeddingsModelFor(deps.config, model);
  if (deps.budgets && principal.budget) await deps.budgets.enforce([{ kind: 'key', name: principal.name, budget: principal.budget }]);
  const answer = await requestEmbeddings(endpoint, call);
  const usage = answer.usage ?? estimatedUsage(call.input);
  deps.usage?.record({ source: 'embeddings', model: endpoint.ref, keyName: principal.name, promptTokens: usage.prompt_tokens, completionTokens: 0, estimated: !answer.usage });
  return { ...answer, usage };
}
