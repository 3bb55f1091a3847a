import type { KnowledgeDocument } from '../port.js';

/**
 * A knowledge document's row as both adapters store it (same column names); `Json` is how the
 * metadata column comes back: text (SQLite) or parsed (PostgreSQL). Only ready documents are
 * read as records (SQLite also keeps `indexing` rows while their chunks are written).
 */
export interface KnowledgeDocumentRow<Json = unknown> {
  id: string;
  agent_id: string;
  filename: string;
  bytes: number;
  mime_type: string;
  sha256: string;
  status: KnowledgeDocument['status'] | 'indexing';
  chunk_count: number;
  metadata: Json | null;
  created_at: number;
}

/** a row as a port record; `json` reads the metadata column as the adapter stores it */
export const toKnowledgeDocument = <Json>(r: KnowledgeDocumentRow<Json>, json: (value: Json) => Record<string, unknown>): KnowledgeDocument => ({
  id: r.id,
  agentId: r.agent_id,
  filename: r.filename,
  bytes: r.bytes,
  mimeType: r.mime_type,
  sha256: r.sha256,
  status: 'ready',
  chunkCount: r.chunk_count,
  metadata: r.metadata ? json(r.metadata) : null,
  createdAt: r.created_at,
});
