import type { AgentConfig } from '../../agents/agent-directory.js';
import { HeraldError } from '../../errors.js';
import type { KnowledgePassage } from '../../knowledge/knowledge-passage.js';
import { documentUri } from './ask-agent.js';

/** the search tool's name at /mcp */
export const SEARCH_TOOL = 'search_documents';

/** most passages one search answers */
const MAX_RESULTS = 20;

export interface SearchInput {
  query: string;
  /** one agent's knowledge; all the key's agents' without it */
  agent?: string;
  limit?: number;
}

export interface SearchHit {
  agent: string;
  document: string;
  filename: string;
  uri: string;
  content: string;
  score: number;
}

/** an agent's knowledge search (the vector stores attached to it included), as a turn searches it */
export type AgentSearch = (agentId: string, question: string, limit: number) => KnowledgePassage[] | Promise<KnowledgePassage[]>;

/**
 * `search_documents`: the knowledge of the agents the key may ask (or of the one it names), best
 * passages first, each with its document's resource URI. An agent outside the key's scope is an
 * unknown one, exactly as /v1 answers it.
 */
export async function searchDocuments(search: AgentSearch, agents: readonly AgentConfig[], input: SearchInput): Promise<SearchHit[]> {
  if (typeof input.query !== 'string' || input.query.trim() === '') throw new HeraldError('HERALD_INVALID_FIELD', 'query must be a non-empty string', { param: 'query' });
  const limit = Math.min(MAX_RESULTS, Math.max(1, Number.isInteger(input.limit) ? input.limit! : 5));
  let among = agents;
  if (input.agent !== undefined) {
    among = agents.filter((a) => a.id === input.agent);
    if (!among.length) throw new HeraldError('HERALD_AGENT_NOT_FOUND', `The agent "${String(input.agent)}" does not exist.`, { param: 'agent' });
  }
  const found = await Promise.all(among.map(async (agent) => (await search(agent.id, input.query, limit)).map((p) => ({ agent: agent.id, p }))));
  return found
    .flat()
    .sort((a, b) => b.p.score - a.p.score)
    .slice(0, limit)
    .map(({ agent, p }) => ({ agent, document: p.documentId, filename: p.filename, uri: documentUri(agent, p.documentId), content: p.content, score: p.score }));
}

export const SEARCH_INPUT_SCHEMA = {
  type: 'object',
  properties: {
    query: { type: 'string', minLength: 1, description: 'What to look for.' },
    agent: { type: 'string', description: "Only this agent's knowledge (an agent id); all of them without it." },
    limit: { type: 'integer', minimum: 1, maximum: MAX_RESULTS, description: 'Most passages (default 5).' },
  },
  required: ['query'],
  additionalProperties: false,
} as const;

export const SEARCH_OUTPUT_SCHEMA = {
  type: 'object',
  properties: {
    results: {
      type: 'array',
      items: {
        type: 'object',
        properties: { agent: { type: 'string' }, document: { type: 'string' }, filename: { type: 'string' }, uri: { type: 'string' }, content: { type: 'string' }, score: { type: 'number' } },
        required: ['agent', 'document', 'filename', 'uri', 'content', 'score'],
      },
    },
  },
  required: ['results'],
} as const;
