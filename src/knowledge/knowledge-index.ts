import { randomHex } from '../platform/random-hex.js';
import type { KnowledgeDocument, KnowledgeRepo, NewKnowledgeDocument } from '../store/port.js';
import type { KnowledgePassage } from './knowledge-passage.js';
import { queryTerms } from './search-query.js';

export type { KnowledgeDocument } from '../store/port.js';

export const newId = (prefix: string) => `${prefix}_${randomHex(12)}`;

/**
 * The knowledge base of every agent, over the store's knowledge repo: knowledge/ decides which
 * words of a question are searched for (stopwords, scripts); the store keeps and ranks the chunks.
 */
export class KnowledgeIndex {
  constructor(private readonly repo: KnowledgeRepo) {}

  findByHash(agentId: string, sha256: string): Promise<KnowledgeDocument | undefined> {
    return this.repo.findByHash(agentId, sha256);
  }

  get(id: string): Promise<KnowledgeDocument | undefined> {
    return this.repo.get(id);
  }

  list(agentId?: string): Promise<KnowledgeDocument[]> {
    return this.repo.list(agentId);
  }

  /** documents per agent id */
  documentCounts(): Promise<Map<string, number>> {
    return this.repo.documentCounts();
  }

  /** stores a document and its chunks at once; a concurrent duplicate returns the one stored first */
  add(doc: NewKnowledgeDocument, chunks: string[]): Promise<{ document: KnowledgeDocument; created: boolean }> {
    return this.repo.add(doc, chunks);
  }

  delete(id: string): Promise<boolean> {
    return this.repo.delete(id);
  }

  /** the agent's best passages for a question, best first; score is higher-is-better */
  async search(agentId: string, question: string, limit = 4): Promise<KnowledgePassage[]> {
    const terms = queryTerms(question);
    return terms.length ? this.repo.search(agentId, terms, limit) : [];
  }
}
