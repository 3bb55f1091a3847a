/**
 * Whose knowledge a chunk is: the knowledge tables key documents by an owner, which is an agent id
 * (its own knowledge, uploaded through /v1/knowledge) or a vector store's key. Agent ids never hold
 * a `:`, so the two never meet. An agent's own knowledge is also a vector store, `vs_agent_<id>`.
 */
const STORE_OWNER = 'vector_store:';
const AGENT_STORE = 'vs_agent_';

export const agentVectorStoreId = (agentId: string) => `${AGENT_STORE}${agentId}`;

/** the agent whose own knowledge this vector store id names; undefined for a vector store made through the API */
export const agentOfVectorStore = (vectorStoreId: string) => (vectorStoreId.startsWith(AGENT_STORE) ? vectorStoreId.slice(AGENT_STORE.length) : undefined);

/** the knowledge owner holding a vector store's chunks */
export const knowledgeOwnerOf = (vectorStoreId: string) => agentOfVectorStore(vectorStoreId) ?? `${STORE_OWNER}${vectorStoreId}`;

/** whether an owner is a vector store made through the API (its documents are not an agent's /v1/knowledge) */
export const isVectorStoreOwner = (owner: string) => owner.startsWith(STORE_OWNER);
