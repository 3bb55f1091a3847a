import { HeraldError } from '../../errors.js';
import { modelChain } from '../../models/model-chain.js';
import type { AgentConfig } from '../agent-directory.js';
import type { AgentTurnDeps } from '../agent-turn.js';

/** what a request asks that only a model taking client tools can do: the field, and what it is */
export interface ClientToolsUse {
  param: string;
  what: string;
}

/**
 * Refuses, before anything is sent or stored, a request for client tools or structured output
 * to an agent whose model would silently ignore them (the embedded model): 400 naming the field,
 * the agent, its model and what to configure instead.
 */
export function requireClientTools(deps: Pick<AgentTurnDeps, 'config' | 'models'>, agent: AgentConfig, use: ClientToolsUse | undefined): void {
  if (!use) return;
  const { provider, resolved } = deps.models.resolve(modelChain(deps.config.agents.defaults.model, agent.model)[0]!);
  if (provider.clientTools) return;
  throw new HeraldError(
    'HERALD_MODEL_CANNOT_USE_TOOLS',
    `${use.param}: the agent "${agent.id}" answers with the model "${resolved.ref}", which cannot take ${use.what}. ` +
      'Add an OpenAI-compatible provider to models.providers ({ api: "openai", baseUrl, apiKey }: OpenAI, Ollama, vLLM, llama.cpp) ' +
      `and set the agent's model to "<provider>/<model>".`,
    { param: use.param },
  );
}
