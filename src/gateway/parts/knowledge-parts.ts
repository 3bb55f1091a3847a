import type { Logger } from 'pino';
import type { AgentDirectory } from '../../agents/agent-directory.js';
import type { HeraldConfig } from '../../config/schema.js';
import { KnowledgeIndex } from '../../knowledge/knowledge-index.js';
import { ParsePool } from '../../knowledge/parsing/parse-pool.js';
import { Files } from '../../knowledge-stores/files.js';
import { VectorStores } from '../../knowledge-stores/vector-stores.js';
import { openAIEmbedder } from '../../models/embeddings/embeddings-client.js';
import { embeddingsEndpoint } from '../../models/embeddings/embeddings-endpoint.js';
import type { Store } from '../../store/port.js';
import type { Lifecycle } from '../lifecycle.js';

/** the knowledge an agent searches: the index, the vector stores and their files, the parse workers */
export function buildKnowledge({ config, store, agents }: { config: HeraldConfig; store: Store; agents: AgentDirectory }, logger: Logger, lifecycle: Lifecycle) {
  const parser = new ParsePool(config.platform.knowledge);
  const endpoint = embeddingsEndpoint(config);
  const knowledge = new KnowledgeIndex(store.knowledge, { embedder: endpoint && openAIEmbedder(endpoint), logger });
  const { workers, maxFilesInProgressPerKey, maxFilesInProgress } = config.platform.knowledge;
  const vectorStores = new VectorStores({ store, knowledge, parser, agents, logger, limits: { concurrency: workers, perKey: maxFilesInProgressPerKey, total: maxFilesInProgress } });
  const files = new Files(store, (fileId) => vectorStores.forgetFile(fileId));
  // an agent searches its own knowledge and the vector stores attached to it (agents.list[].vectorStores)
  const agentKnowledge = { search: (agentId: string, question: string, limit: number) => vectorStores.searchForAgent(agentId, question, limit) };
  let reindexing: Promise<unknown> | undefined;
  lifecycle.add(
    { name: 'parse workers', stop: () => parser.close() },
    {
      name: 'knowledge reindex',
      // chunks stored under an older index form are indexed again (segmented and stemmed here) in
      // the background: a large knowledge base does not hold the start back; until its batch is
      // done a chunk is found by its previous index form (SQLite) or not at all (PostgreSQL)
      start: () => {
        reindexing = knowledge.upgrade(() => lifecycle.stopping).then(
          (chunks) => chunks && logger.info({ chunks }, 'knowledge: chunks indexed again for this version'),
          (err) => logger.error({ err }, 'knowledge: indexing chunks again failed; the next start goes on with it'),
        );
      },
      stop: async () => void (await reindexing),
    },
    // files a stopped process left in progress are read again (the same bytes make the same document)
    { name: 'vector stores', start: () => vectorStores.resume(), stop: () => vectorStores.settle() },
  );
  return { parser, knowledge, vectorStores, files, agentKnowledge };
}
