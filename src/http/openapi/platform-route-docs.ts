import { agentsRoutes } from '../v1/agents-routes.js';
import { chatCompletionsApi } from '../v1/chat/chat-api.js';
import { embeddingsRoutes } from '../v1/embeddings-routes.js';
import { knowledgeRoutes } from '../v1/knowledge/knowledge-routes.js';
import { filesRoutes } from '../v1/knowledge/files-routes.js';
import { vectorStoreBatchesRoutes } from '../v1/knowledge/vector-store-batches-routes.js';
import { vectorStoresRoutes } from '../v1/knowledge/vector-stores-routes.js';
import { responsesRoutes } from '../v1/responses/responses-routes.js';
import { registryDocsOf, routeDocOf } from './registry-docs.js';
import type { RouteDoc } from './route-doc.js';

/** what a router that never serves is given: its declarations are read, its handlers never run */
const unused = {} as never;

/**
 * The /v1 routes as the shared OpenAPI document lists them, read from each router's `createRoute`
 * declarations (the schemas its handlers parse with) on instances that never serve.
 */
export function platformRouteDocs(): RouteDoc[] {
  return [
    ...registryDocsOf('platform', agentsRoutes(unused)),
    routeDocOf('platform', chatCompletionsApi),
    ...registryDocsOf('platform', embeddingsRoutes(unused)),
    ...registryDocsOf('platform', knowledgeRoutes({ agents: unused, knowledge: unused, parser: unused, maxUploadBytes: 0 })),
    ...registryDocsOf('platform', responsesRoutes(unused)),
    ...registryDocsOf('platform', filesRoutes(unused)),
    ...registryDocsOf('platform', vectorStoresRoutes(unused)),
    ...registryDocsOf('platform', vectorStoreBatchesRoutes(unused)),
  ];
}
