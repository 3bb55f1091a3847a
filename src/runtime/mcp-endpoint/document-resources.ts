import type { AgentConfig } from '../../agents/agent-directory.js';
import { HeraldError } from '../../errors.js';
import type { KnowledgeDocument } from '../../store/port.js';
import { documentUri } from './ask-agent.js';

/** the resource template of an agent's document */
export const DOCUMENT_TEMPLATE = 'herald://agents/{agent}/documents/{id}';

/** what the resources need of the knowledge index */
export interface DocumentSource {
  list(agentId?: string): Promise<KnowledgeDocument[]>;
  get(id: string): Promise<KnowledgeDocument | undefined>;
  chunksOf(documentId: string): Promise<string[]>;
}

export interface DocumentResource {
  uri: string;
  name: string;
  title: string;
  mimeType: string;
  size: number;
}

/** most characters one resources/read gives of a document's text */
const MAX_READ_CHARS = 2_000_000;

/**
 * The knowledge documents of the agents a key may ask, as MCP resources
 * (`herald://agents/{agent}/documents/{id}`): their text as herald indexed it. A document of
 * another agent, or a URI of any other form, is unknown.
 */
export async function listDocuments(source: DocumentSource, agents: readonly AgentConfig[]): Promise<DocumentResource[]> {
  const lists = await Promise.all(agents.map((a) => source.list(a.id)));
  return lists.flat().map((d) => ({ uri: documentUri(d.agentId, d.id), name: d.filename, title: `${d.filename} (${d.agentId})`, mimeType: 'text/plain', size: d.bytes }));
}

export async function readDocument(source: DocumentSource, agents: readonly AgentConfig[], uri: string): Promise<{ uri: string; mimeType: string; text: string }> {
  const parsed = parseDocumentUri(uri);
  const unknown = () => new HeraldError('HERALD_DOCUMENT_NOT_FOUND', `No resource "${uri.slice(0, 200)}".`, { param: 'uri' });
  if (!parsed || !agents.some((a) => a.id === parsed.agent)) throw unknown();
  const document = await source.get(parsed.id);
  if (!document || document.agentId !== parsed.agent) throw unknown();
  const text = (await source.chunksOf(document.id)).join('\n\n');
  return { uri, mimeType: 'text/plain', text: text.length > MAX_READ_CHARS ? `${text.slice(0, MAX_READ_CHARS)}\n[cut at ${MAX_READ_CHARS} characters]` : text };
}

export function parseDocumentUri(uri: string): { agent: string; id: string } | undefined {
  const match = /^herald:\/\/agents\/([^/]+)\/documents\/([^/]+)$/.exec(uri);
  if (!match) return undefined;
  try {
    return { agent: decodeURIComponent(match[1]!), id: decodeURIComponent(match[2]!) };
  } catch {
    return undefined;
  }
}
