import { Hono } from 'hono';
import type { Logger } from 'pino';
import type { AgentDirectory } from '../../agents/agent-directory.js';
import type { AgentTurnDeps } from '../../agents/agent-turn.js';
import type { HeraldConfig } from '../../config/schema.js';
import type { KnowledgeIndex } from '../../knowledge/knowledge-index.js';
import type { ParsePool } from '../../knowledge/parsing/parse-pool.js';
import type { Files } from '../../knowledge-stores/files.js';
import { VectorStoreBatches } from '../../knowledge-stores/vector-store-batches.js';
import type { VectorStores } from '../../knowledge-stores/vector-stores.js';
import type { Store } from '../../store/port.js';
import { agentsRoutes } from './agents-routes.js';
import { embeddingsRoutes } from './embeddings-routes.js';
import { filesRoutes } from './knowledge/files-routes.js';
import { knowledgeRoutes } from './knowledge/knowledge-routes.js';
import { platformAuth, type PlatformGate } from './platform-auth.js';
import { responsesRoutes } from './responses/responses-routes.js';
import { vectorStoreBatchesRoutes } from './knowledge/vector-store-batches-routes.js';
import { vectorStoresRoutes } from './knowledge/vector-stores-routes.js';

export interface PlatformRoutesDeps {
  config: HeraldConfig;
  store: Store;
  knowledge: KnowledgeIndex;
  /** the worker threads that read uploaded documents */
  parser: ParsePool;
  /** API keys and rate limits, shared with the chat's own listener */
  gate: PlatformGate;
  /** what the chat's agent turn needs: models, sessions, knowledge */
  turns: AgentTurnDeps;
  agents: AgentDirectory;
  /** /v1/files and /v1/vector_stores: OpenAI's knowledge API over the knowledge index */
  files: Files;
  vectorStores: VectorStores;
  logger: Logger;
}

/**
 * The /v1 platform API (mounted by the gateway under /v1): API-key auth and rate limit first.
 * Chat completions, the hot path, are a surface of their own (chat-completions.ts), mounted by the app.
 */
export function platformRoutes(deps: PlatformRoutesDeps): Hono {
  const app = new Hono();
  app.use('*', platformAuth(deps.gate));
  app.route('/', agentsRoutes({ agents: deps.agents, knowledge: deps.knowledge, state: deps.store.state }));
  // a response's tool calls are recorded with the store's, whether or not the gateway gave the turns a repo
  app.route('/', responsesRoutes({ ...deps, turns: { ...deps.turns, state: deps.store.state, toolCalls: deps.turns.toolCalls ?? deps.store.toolCalls } }));
  app.route('/', embeddingsRoutes({ config: deps.config, usage: deps.turns.usage, budgets: deps.turns.budgets }));
  app.route('/', knowledgeRoutes({ agents: deps.agents, knowledge: deps.knowledge, parser: deps.parser, maxUploadBytes: deps.config.platform.maxUploadBytes }));
  app.route('/', filesRoutes({ files: deps.files, maxUploadBytes: deps.config.platform.maxUploadBytes }));
  app.route('/', vectorStoresRoutes({ vectorStores: deps.vectorStores }));
  app.route('/', vectorStoreBatchesRoutes({ batches: new VectorStoreBatches(deps.vectorStores, deps.store.state) }));
  return app;
}
