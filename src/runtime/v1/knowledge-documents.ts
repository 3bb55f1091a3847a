import type { AgentDirectory } from '../../agents/agent-directory.js';
import { HeraldError } from '../../errors.js';
import { ingestDocument, type IngestInput, type IngestOutcome } from '../../knowledge/ingest-document.js';
import type { KnowledgeDocument, KnowledgeIndex } from '../../knowledge/knowledge-index.js';
import { isVectorStoreOwner } from '../../knowledge/knowledge-owner.js';
import type { ParsePool } from '../../knowledge/parsing/parse-pool.js';
import { mayUseAgent, type ApiPrincipal } from '../../accounts/api-keys.js';
import { requireAgent } from './agent-access.js';

export interface KnowledgeDocumentsDeps {
  agents: AgentDirectory;
  knowledge: KnowledgeIndex;
  /** the worker threads that read uploaded documents */
  parser: ParsePool;
}

/**
 * /v1/knowledge: an agent's documents, for the keys that may use the agent. A vector store's
 * documents are its files (/v1/vector_stores/{id}/files), not an agent's knowledge, and a
 * document of an agent outside the key's scope does not exist for it.
 */
export class KnowledgeDocuments {
  constructor(private readonly deps: KnowledgeDocumentsDeps) {}

  /** reads, chunks and indexes an upload into the knowledge of an agent the key may use (param `agent_id`) */
  upload(principal: ApiPrincipal, input: Omit<IngestInput, 'agentId'> & { agentId: string | undefined }): Promise<IngestOutcome> {
    if (!input.agentId) throw new HeraldError('HERALD_INVALID_FIELD', 'agent_id is required', { param: 'agent_id' });
    const agent = requireAgent(this.deps.agents, principal, input.agentId, 'agent_id');
    return ingestDocument(this.deps.knowledge, this.deps.parser, { ...input, agentId: agent.id });
  }

  /** the documents of the agents the key may use, or of one of them */
  async list(principal: ApiPrincipal, agentId: string | undefined): Promise<KnowledgeDocument[]> {
    if (agentId !== undefined) requireAgent(this.deps.agents, principal, agentId, 'agent_id');
    return (await this.deps.knowledge.list(agentId)).filter((d) => this.visible(principal, d));
  }

  /** one document the key may see, or 404 (param `id`) */
  async get(principal: ApiPrincipal, id: string): Promise<KnowledgeDocument> {
    const document = await this.deps.knowledge.get(id);
    if (!document || !this.visible(principal, document)) throw new HeraldError('HERALD_DOCUMENT_NOT_FOUND', `No knowledge document "${id}".`, { param: 'id' });
    return document;
  }

  async delete(principal: ApiPrincipal, id: string): Promise<KnowledgeDocument> {
    const document = await this.get(principal, id);
    await this.deps.knowledge.delete(document.id);
    return document;
  }

  private visible(principal: ApiPrincipal, document: KnowledgeDocument): boolean {
    return !isVectorStoreOwner(document.agentId) && mayUseAgent(principal, document.agentId);
  }
}
