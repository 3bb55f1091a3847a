import type { AgentConfig, AgentDirectory } from '../../agents/agent-directory.js';
import { HeraldError } from '../../errors.js';
import { mayUseAgent, type ApiPrincipal } from '../../accounts/api-keys.js';

/**
 * The agent a /v1 call names, or 404 naming the parameter it came from. An agent outside the
 * key's scope is answered exactly as one that does not exist, so a scoped key cannot learn
 * which other agents there are.
 */
export function requireAgent(agents: AgentDirectory, principal: ApiPrincipal, id: unknown, param: string, openaiCode?: string): AgentConfig {
  const agent = typeof id === 'string' ? agents.get(id) : undefined;
  if (!agent || !mayUseAgent(principal, agent.id)) {
    const noun = openaiCode === 'model_not_found' ? 'model' : 'agent';
    throw new HeraldError('HERALD_AGENT_NOT_FOUND', `The ${noun} "${String(id)}" does not exist.`, { param, ...(openaiCode && { openaiCode }) });
  }
  return agent;
}
