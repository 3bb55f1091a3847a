import { createRoute } from '@hono/zod-openapi';
import { z } from 'zod';
import { idParams, jsonAnswer as json, listOf, listQuerySchema, openaiErrorAnswers } from '../openapi/common-schemas.js';
import { apiKeySecurity } from '../openapi/documented-route.js';

export const agentObjectSchema = z.object({
  id: z.string(),
  object: z.literal('agent'),
  created: z.number().int(),
  owned_by: z.literal('herald'),
  name: z.string(),
  description: z.string().nullable(),
  model: z.string(),
  knowledge_document_count: z.number().int(),
  retrieval: z.enum(['bm25', 'hybrid']).describe('How its knowledge is searched: full text (BM25), or hybrid (full text fused with vectors) when platform.knowledge.embeddings is set.'),
  vector_store_ids: z.array(z.string()).describe('What its turns search: its own knowledge (vs_agent_<id>), then the vector stores attached in agents.list[].vectorStores.'),
});

export const modelObjectSchema = z.object({ id: z.string(), object: z.literal('model'), created: z.number().int(), owned_by: z.literal('herald') });

/** /v1 answers a 404 for an agent outside the key's scope as for one that does not exist */
export const agentErrors = (...statuses: number[]) => openaiErrorAnswers(statuses, { 404: "No such agent or document, or an agent outside the key's scope (answered alike)." });

/** GET /v1/agents[/{id}] and /v1/models[/{id}], as declared for the document */
export const agentsApi = {
  list: createRoute({
    method: 'get', path: '/agents', summary: 'List the digital employees', security: apiKeySecurity,
    request: { query: listQuerySchema },
    responses: { 200: json(listOf(agentObjectSchema), 'A page of agents.'), ...agentErrors(400, 401, 429) },
  }),
  get: createRoute({
    method: 'get', path: '/agents/{id}', summary: 'One digital employee', security: apiKeySecurity,
    request: { params: idParams },
    responses: { 200: json(agentObjectSchema, 'The agent.'), ...agentErrors(401, 404, 429) },
  }),
  models: createRoute({
    method: 'get', path: '/models', summary: 'The agents as OpenAI models', security: apiKeySecurity,
    request: { query: listQuerySchema },
    responses: { 200: json(listOf(modelObjectSchema), 'Every agent (paged only with limit).'), ...agentErrors(400, 401, 429) },
  }),
  model: createRoute({
    method: 'get', path: '/models/{id}', summary: 'One agent as an OpenAI model', security: apiKeySecurity,
    request: { params: idParams },
    responses: { 200: json(modelObjectSchema, 'The model.'), ...agentErrors(401, 404, 429) },
  }),
};
