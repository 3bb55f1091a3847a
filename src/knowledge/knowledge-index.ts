import { randomBytes } from 'node:crypto';
import type { SqliteDatabase } from '../store/sqlite/open-database.js';
import type { KnowledgePassage } from '../models/provider.js';
import { ftsQuery } from './search-query.js';

export interface KnowledgeDocument {
  id: string;
  agentId: string;
  filename: string;
  bytes: number;
  mimeType: string;
  sha256: string;
  status: 'ready';
  chunkCount: number;
  metadata: Record<string, unknown> | null;
  /** epoch milliseconds */
  createdAt: number;
}

interface DocumentRow {
  id: string;
  agent_id: string;
  filename: string;
  bytes: number;
  mime_type: string;
  sha256: string;
  status: 'ready';
  chunk_count: number;
  metadata: string | null;
  created_at: number;
}

const toDocument = (r: DocumentRow): KnowledgeDocument => ({
  id: r.id,
  agentId: r.agent_id,
  filename: r.filename,
  bytes: r.bytes,
  mimeType: r.mime_type,
  sha256: r.sha256,
  status: r.status,
  chunkCount: r.chunk_count,
  metadata: r.metadata ? (JSON.parse(r.metadata) as Record<string, unknown>) : null,
  createdAt: r.created_at,
});

/** the one FTS token naming an agent, as the insert trigger writes it ('x' || hex(agent_id)) */
const agentToken = (agentId: string) => `x${Buffer.from(agentId, 'utf8').toString('hex').toUpperCase()}`;

export const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

/**
 * The knowledge base of every agent, in the store's SQLite file: documents, their chunks,
 * and an FTS5 index over the chunks ranked by bm25. Writes of one document are one transaction.
 */
export class KnowledgeIndex {
  private readonly byHash;
  private readonly byId;
  private readonly byAgent;
  private readonly all;
  private readonly counts;
  private readonly insertDoc;
  private readonly insertChunk;
  private readonly deleteDoc;
  private readonly search_;

  constructor(private readonly db: SqliteDatabase) {
    this.byHash = db.prepare<[string, string], DocumentRow>('SELECT * FROM knowledge_documents WHERE agent_id = ? AND sha256 = ?');
    this.byId = db.prepare<[string], DocumentRow>('SELECT * FROM knowledge_documents WHERE id = ?');
    this.byAgent = db.prepare<[string], DocumentRow>('SELECT * FROM knowledge_documents WHERE agent_id = ? ORDER BY created_at, rowid');
    this.all = db.prepare<[], DocumentRow>('SELECT * FROM knowledge_documents ORDER BY created_at, rowid');
    this.counts = db.prepare<[], { agent_id: string; n: number }>('SELECT agent_id, COUNT(*) AS n FROM knowledge_documents GROUP BY agent_id');
    this.insertDoc = db.prepare(
      `INSERT INTO knowledge_documents (id, agent_id, filename, bytes, mime_type, sha256, status, chunk_count, metadata, created_at)
       VALUES (@id, @agent_id, @filename, @bytes, @mime_type, @sha256, @status, @chunk_count, @metadata, @created_at)`,
    );
    this.insertChunk = db.prepare<[string, string, string, number, string]>(
      'INSERT INTO knowledge_chunks (id, document_id, agent_id, seq, content) VALUES (?, ?, ?, ?, ?)',
    );
    this.deleteDoc = db.prepare<[string]>('DELETE FROM knowledge_documents WHERE id = ?');
    // bm25 is lower-is-better; the top rows are picked inside FTS5 before any join
    this.search_ = db.prepare<[string, number], { id: string; document_id: string; filename: string; content: string; rank: number }>(
      `WITH top AS (SELECT rowid, rank FROM knowledge_fts WHERE knowledge_fts MATCH ? ORDER BY rank LIMIT ?)
       SELECT c.id, c.document_id, d.filename, c.content, top.rank AS rank
         FROM top
         JOIN knowledge_chunks c ON c.rowid = top.rowid
         JOIN knowledge_documents d ON d.id = c.document_id
        ORDER BY top.rank`,
    );
  }

  findByHash(agentId: string, sha256: string): KnowledgeDocument | undefined {
    const row = this.byHash.get(agentId, sha256);
    return row && toDocument(row);
  }

  get(id: string): KnowledgeDocument | undefined {
    const row = this.byId.get(id);
    return row && toDocument(row);
  }

  list(agentId?: string): KnowledgeDocument[] {
    return (agentId === undefined ? this.all.all() : this.byAgent.all(agentId)).map(toDocument);
  }

  /** documents per agent id */
  documentCounts(): Map<string, number> {
    return new Map(this.counts.all().map((r) => [r.agent_id, r.n]));
  }

  /** stores a document and its chunks at once; a concurrent duplicate returns the one stored first */
  add(doc: Omit<KnowledgeDocument, 'id' | 'status' | 'chunkCount' | 'createdAt'>, chunks: string[]): { document: KnowledgeDocument; created: boolean } {
    return this.db.transaction(() => {
      const existing = this.findByHash(doc.agentId, doc.sha256);
      if (existing) return { document: existing, created: false };
      const id = newId('doc');
      this.insertDoc.run({
        id,
        agent_id: doc.agentId,
        filename: doc.filename,
        bytes: doc.bytes,
        mime_type: doc.mimeType,
        sha256: doc.sha256,
        status: 'ready',
        chunk_count: chunks.length,
        metadata: doc.metadata ? JSON.stringify(doc.metadata) : null,
        created_at: Date.now(),
      });
      chunks.forEach((content, seq) => this.insertChunk.run(newId('chunk'), id, doc.agentId, seq, content));
      return { document: this.get(id)!, created: true };
    }).immediate();
  }

  delete(id: string): boolean {
    return this.deleteDoc.run(id).changes > 0;
  }

  /** the agent's best passages for a question, best first; score is -bm25 (higher is better) */
  search(agentId: string, question: string, limit = 4): KnowledgePassage[] {
    const terms = ftsQuery(question);
    if (!terms) return [];
    return this.search_.all(`agent : ${agentToken(agentId)} AND (${terms})`, limit).map((r) => ({
      documentId: r.document_id,
      filename: r.filename,
      chunkId: r.id,
      score: Math.round(-r.rank * 10_000) / 10_000,
      content: r.content,
    }));
  }
}
