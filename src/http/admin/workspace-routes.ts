import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { Hono } from 'hono';
import { HeraldError } from '../../errors.js';
import { isoTime as iso } from '../../time/iso-time.js';
import { API_KEY_NAME, API_KEY_NAME_RULE } from '../../accounts/create-api-key.js';
import { documentObjectSchema } from '../v1/knowledge/knowledge-api.js';
import { knowledgeRoutes } from '../v1/knowledge/knowledge-routes.js';
import { bearerSecurity } from './admin-app.js';
import { errorSchema } from './admin-schemas.js';
import type { OperatorDeps } from './operator-deps.js';

const json = <T extends z.ZodTypeAny>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description });
const errors = { 400: json(errorSchema, 'Invalid body'), 401: json(errorSchema, 'Not signed in'), 403: json(errorSchema, 'A console request without its CSRF token') };

const agentSchema = z
  .object({
    id: z.string(),
    name: z.string().nullable(),
    description: z.string().nullable(),
    model: z.string(),
    documents: z.number().int(),
    runsHooks: z.boolean().openapi({ description: 'It is the default agent: it runs every hook whose mapping or request names no agent (or an unknown one), and the heartbeats. Another agent runs only the hooks that name it.' }),
    hooksAllowed: z.boolean().openapi({ description: 'hooks.allowedAgentIds lets hook runs go to it (unset or "*": every agent).' }),
    retrieval: z.enum(['bm25', 'hybrid']).openapi({ description: 'How its knowledge is searched: full text (BM25), or hybrid (with vectors) when platform.knowledge.embeddings is set.' }),
    budget: z.object({ tokensPerDay: z.number().int().optional(), costPerMonth: z.number().optional() }).nullable().openapi({ description: 'Its budget (agents.list[].budget), or null.' }),
  })
  .openapi('Agent');
const apiKeySchema = z
  .object({ name: z.string(), agents: z.array(z.string()).nullable(), createdAt: z.string().nullable(), source: z.enum(['store', 'config']) })
  .openapi('ApiKey');
// the /v1 document object, the one the admin API answers too
const documentSchema = documentObjectSchema.openapi('KnowledgeDocument');

const keyNameSchema = z.string().regex(API_KEY_NAME, API_KEY_NAME_RULE);

/** Agents, API keys and knowledge documents, for the console's pages of the same names. */
export function registerWorkspaceRoutes(app: OpenAPIHono, deps: { operator: OperatorDeps }): void {
  const { agents, keys, knowledge } = deps.operator;

  app.openapi(
    createRoute({
      method: 'get',
      path: '/agents',
      tags: ['agents'],
      summary: 'The digital employees, their models and knowledge documents',
      security: bearerSecurity,
      responses: {
        200: json(z.object({ data: z.array(agentSchema), defaultAgentId: z.string().openapi({ description: 'The default agent (agents.list[].default, else the first).' }) }), 'Every agent'),
        401: errors[401],
      },
    }),
    async (c) => {
      const counts = await knowledge.documentCounts();
      const first = agents.default().id;
      const data = agents.all().map((a) => ({
        id: a.id,
        name: a.name ?? null,
        description: a.description ?? null,
        model: agents.modelOf(a),
        documents: counts.get(a.id) ?? 0,
        runsHooks: a.id === first,
        hooksAllowed: agents.hooksAllowed(a.id),
        retrieval: agents.retrieval(),
        budget: a.budget ?? null,
      }));
      return c.json({ data, defaultAgentId: first }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/keys',
      tags: ['keys'],
      summary: 'Platform API keys: created ones and configured ones (names only, never a key)',
      security: bearerSecurity,
      responses: { 200: json(z.object({ data: z.array(apiKeySchema) }), 'Every key'), 401: errors[401] },
    }),
    async (c) => {
      const data = (await keys.list()).map((k) => ({ name: k.name, agents: k.agents ?? null, createdAt: iso(k.createdAt), source: k.source }));
      return c.json({ data }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/keys',
      tags: ['keys'],
      summary: 'Create an API key: the key is in this answer only (herald keeps its sha256)',
      security: bearerSecurity,
      request: {
        body: {
          content: { 'application/json': { schema: z.object({ name: keyNameSchema, agents: z.array(z.string().min(1)).min(1).optional() }) } },
          required: true,
        },
      },
      responses: { 201: json(apiKeySchema.extend({ key: z.string() }), 'The new key, shown once'), 409: json(errorSchema, 'A key of this name exists'), ...errors },
    }),
    async (c) => {
      const created = await keys.create(c.req.valid('json'));
      return c.json({ name: created.name, agents: created.agents ?? null, createdAt: iso(created.createdAt), source: 'store' as const, key: created.key }, 201);
    },
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/keys/{name}',
      tags: ['keys'],
      summary: 'Revoke a created API key (configured ones live in the config file)',
      security: bearerSecurity,
      request: { params: z.object({ name: keyNameSchema.openapi({ param: { name: 'name', in: 'path' } }) }) },
      responses: { 200: json(z.object({ name: z.string(), revoked: z.literal(true) }), 'Revoked'), 404: json(errorSchema, 'No created key of this name'), ...errors },
    }),
    async (c) => {
      const { name } = c.req.valid('param');
      if (!(await keys.revoke(name))) throw new HeraldError('HERALD_NOT_FOUND', `no created key named "${name}"`);
      return c.json({ name, revoked: true as const }, 200);
    },
  );

  // the platform's own knowledge routes, for an operator allowed every agent: one implementation of upload, list and delete
  app.use('/knowledge/*', async (c, next) => {
    c.set('principal', { name: 'operator' });
    await next();
  });
  app.use('/knowledge', async (c, next) => {
    c.set('principal', { name: 'operator' });
    await next();
  });
  // mounted through a plain Hono: the admin app declares these routes below in its own words (the gateway token), so the /v1 declarations are not merged into its registry
  app.route('/', new Hono().route('/', knowledgeRoutes({ agents, knowledge, parser: deps.operator.parser, maxUploadBytes: deps.operator.maxUploadBytes })));
  const registry = app.openAPIRegistry;
  registry.registerPath({
    method: 'get',
    path: '/knowledge',
    tags: ['knowledge'],
    summary: "Knowledge documents (all agents, or one agent's with agent_id); the shape of GET /v1/knowledge",
    security: bearerSecurity,
    request: { query: z.object({ agent_id: z.string().optional(), limit: z.string().optional(), after: z.string().optional() }) },
    responses: { 200: json(z.object({ object: z.literal('list'), data: z.array(documentSchema), has_more: z.boolean() }), 'Documents') },
  });
  registry.registerPath({
    method: 'post',
    path: '/knowledge/upload',
    tags: ['knowledge'],
    summary: 'Upload a document into an agent\'s knowledge base (multipart: file, agent_id, chunk_size, chunk_overlap, metadata)',
    security: bearerSecurity,
    request: {
      body: {
        content: { 'multipart/form-data': { schema: z.object({ file: z.string().openapi({ format: 'binary' }), agent_id: z.string(), metadata: z.string().optional() }) } },
      },
    },
    responses: { 201: json(documentSchema, 'Created'), 200: json(documentSchema, 'The same content was there already'), 413: json(errorSchema, 'Too large') },
  });
  registry.registerPath({
    method: 'get',
    path: '/knowledge/{id}',
    tags: ['knowledge'],
    summary: 'One knowledge document',
    security: bearerSecurity,
    request: { params: z.object({ id: z.string() }) },
    responses: { 200: json(documentSchema, 'The document'), 404: json(errorSchema, 'No such document') },
  });
  registry.registerPath({
    method: 'delete',
    path: '/knowledge/{id}',
    tags: ['knowledge'],
    summary: 'Delete a document and its chunks',
    security: bearerSecurity,
    request: { params: z.object({ id: z.string() }) },
    responses: { 200: json(z.object({ id: z.string(), object: z.literal('knowledge.document.deleted'), deleted: z.literal(true) }), 'Deleted') },
  });
}
