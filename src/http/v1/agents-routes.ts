import { OpenAPIHono } from '@hono/zod-openapi';
import type { AgentConfig, AgentDirectory } from '../../agents/agent-directory.js';
import type { KnowledgeIndex } from '../../knowledge/knowledge-index.js';
import { agentVectorStoreId } from '../../knowledge/knowledge-owner.js';
import { mayUseAgent, type ApiPrincipal } from '../../accounts/api-keys.js';
import type { StateRepo } from '../../store/port.js';
import { listPage } from './list-page.js';
import { serveDocumented } from '../openapi/documented-route.js';
import { agentsApi } from './agents-api.js';
import { requireAgent } from '../../runtime/v1/agent-access.js';
import { declaredParams, declaredQuery } from './request-param.js';

export interface AgentsRoutesDeps {
  agents: AgentDirectory;
  knowledge: KnowledgeIndex;
  state: StateRepo;
}

const CREATED_KEY = 'platform.agentCreatedAt';

/** GET /v1/agents[/:id] and the same agents as OpenAI models at GET /v1/models[/:id]. */
export function agentsRoutes(deps: AgentsRoutesDeps): OpenAPIHono {
  const app = new OpenAPIHono();

  // an agent's `created` is when this store first served it, kept so it is stable across restarts
  const createdAt = async (): Promise<Record<string, number>> => {
    const known = (await deps.state.get<Record<string, number>>(CREATED_KEY)) ?? {};
    if (deps.agents.all().every((a) => known[a.id] !== undefined)) return known;
    return deps.state.update<Record<string, number>>(CREATED_KEY, (current = {}) => {
      const now = Math.floor(Date.now() / 1000);
      for (const a of deps.agents.all()) current[a.id] ??= now;
      return current;
    });
  };

  const visible = (principal: ApiPrincipal) => deps.agents.all().filter((a) => mayUseAgent(principal, a.id));

  const agentObject = (agent: AgentConfig, created: Record<string, number>, counts: Map<string, number>) => ({
    id: agent.id,
    object: 'agent' as const,
    created: created[agent.id] ?? 0,
    owned_by: 'herald',
    name: agent.name ?? agent.id,
    description: agent.description ?? null,
    model: deps.agents.modelOf(agent),
    knowledge_document_count: counts.get(agent.id) ?? 0,
    retrieval: deps.agents.retrieval(),
    // its own knowledge as a vector store, then the stores attached to it: what its turns search
    vector_store_ids: [agentVectorStoreId(agent.id), ...(agent.vectorStores ?? [])],
  });

  const modelObject = (agent: AgentConfig, created: Record<string, number>) => ({
    id: agent.id,
    object: 'model' as const,
    created: created[agent.id] ?? 0,
    owned_by: 'herald',
  });

  serveDocumented(app, agentsApi.list, async (c) => {
    const [created, counts] = [await createdAt(), await deps.knowledge.documentCounts()];
    return c.json(listPage(declaredQuery(agentsApi.list, c), visible(c.get('principal')).map((a) => agentObject(a, created, counts))));
  });

  serveDocumented(app, agentsApi.get, async (c) => {
    const agent = requireAgent(deps.agents, c.get('principal'), declaredParams(agentsApi.get, c).id, 'id');
    return c.json(agentObject(agent, await createdAt(), await deps.knowledge.documentCounts()));
  });

  // OpenAI's model list is not paged and model pickers want it whole: without `limit`, every agent
  serveDocumented(app, agentsApi.models, async (c) => {
    const created = await createdAt();
    return c.json(listPage(declaredQuery(agentsApi.models, c), visible(c.get('principal')).map((a) => modelObject(a, created)), Number.POSITIVE_INFINITY));
  });

  serveDocumented(app, agentsApi.model, async (c) => {
    const agent = requireAgent(deps.agents, c.get('principal'), declaredParams(agentsApi.model, c).id, 'model', 'model_not_found');
    return c.json(modelObject(agent, await createdAt()));
  });

  return app;
}
