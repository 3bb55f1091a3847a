import { randomHex } from '../platform/random-hex.js';
import type { SqliteDatabase } from '../store/sqlite/open-database.js';
import type { KnowledgePassage } from './knowledge-passage.js';
import { ftsQuery, queryTerms } from './search-query.js';

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

export const newId = (prefix: string) => `${prefix}_${randomHex(12)}`;

type Passage = { id: string; document_id: string; filename: string; content: string; rank: number };

/** one agent's full-text index: a contentless FTS5 table (the text lives in knowledge_chunks) */
class AgentFts {
  readonly insert;
  readonly remove;
  readonly count;
  readonly search;

  constructor(db: SqliteDatabase, agentId: string) {
    // agent ids are [A-Za-z0-9._-]; hex keeps the table name a plain identifier whatever they hold
    const table = `knowledge_fts_${Buffer.from(agentId, 'utf8').toString('hex')}`;
    db.exec(
      `CREATE VIRTUAL TABLE IF NOT EXISTS ${table} USING fts5(content, content = '', contentless_delete = 1, tokenize = 'porter unicode61 remove_diacritics 2')`,
    );
    this.insert = db.prepare<[number | bigint, string]>(`INSERT INTO ${table} (rowid, content) VALUES (?, ?)`);
    this.remove = db.prepare<[string]>(`DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM knowledge_chunks WHERE document_id = ?)`);
    this.count = db.prepare<[string], { n: number }>(`SELECT count(*) AS n FROM ${table} WHERE ${table} MATCH ?`);
    // bm25 is lower-is-better; the top rows are picked inside FTS5 before any join
    this.search = db.prepare<[string, number], Passage>(
      `WITH top AS (SELECT rowid, rank FROM ${table} WHERE ${table} MATCH ? ORDER BY rank LIMIT ?)
       SELECT c.id, c.document_id, d.filename, c.content, top.rank AS rank
         FROM top
         JOIN knowledge_chunks c ON c.rowid = top.rowid
         JOIN knowledge_documents d ON d.id = c.document_id
        ORDER BY top.rank`,
    );
  }
}

/**
 * The knowledge base of every agent, in the store's SQLite file: documents, their chunks, and
 * one FTS5 index per agent ranked by bm25 (so term statistics are the agent's own). Writes of
 * one document are one transaction.
 */
export class KnowledgeIndex {
  private readonly byHash;
  private readonly byId;
  private readonly byAgent;
  private readonly all;
  private readonly counts;
  private readonly chunkTotal;
  private readonly insertDoc;
  private readonly insertChunk;
  private readonly deleteDoc;
  private readonly fts = new Map<string, AgentFts>();
  /** chunks holding a term, by agent and term; cleared on every write */
  private readonly frequencies = new Map<string, number>();
  /** chunks per agent, cleared on every write: every hook run searches, and most agents have no documents */
  private readonly totals = new Map<string, number>();

  constructor(private readonly db: SqliteDatabase) {
    this.byHash = db.prepare<[string, string], DocumentRow>('SELECT * FROM knowledge_documents WHERE agent_id = ? AND sha256 = ?');
    this.byId = db.prepare<[string], DocumentRow>('SELECT * FROM knowledge_documents WHERE id = ?');
    this.byAgent = db.prepare<[string], DocumentRow>('SELECT * FROM knowledge_documents WHERE agent_id = ? ORDER BY created_at, rowid');
    this.all = db.prepare<[], DocumentRow>('SELECT * FROM knowledge_documents ORDER BY created_at, rowid');
    this.counts = db.prepare<[], { agent_id: string; n: number }>('SELECT agent_id, COUNT(*) AS n FROM knowledge_documents GROUP BY agent_id');
    this.chunkTotal = db.prepare<[string], { n: number }>('SELECT coalesce(sum(chunk_count), 0) AS n FROM knowledge_documents WHERE agent_id = ?');
    this.insertDoc = db.prepare(
      `INSERT INTO knowledge_documents (id, agent_id, filename, bytes, mime_type, sha256, status, chunk_count, metadata, created_at)
       VALUES (@id, @agent_id, @filename, @bytes, @mime_type, @sha256, @status, @chunk_count, @metadata, @created_at)`,
    );
    this.insertChunk = db.prepare<[string, string, string, number, string]>(
      'INSERT INTO knowledge_chunks (id, document_id, agent_id, seq, content) VALUES (?, ?, ?, ?, ?)',
    );
    this.deleteDoc = db.prepare<[string]>('DELETE FROM knowledge_documents WHERE id = ?');
  }

  private ftsOf(agentId: string): AgentFts {
    let fts = this.fts.get(agentId);
    if (!fts) {
      fts = new AgentFts(this.db, agentId);
      this.fts.set(agentId, fts);
    }
    return fts;
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
    const fts = this.ftsOf(doc.agentId);
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
      chunks.forEach((content, seq) => {
        const { lastInsertRowid } = this.insertChunk.run(newId('chunk'), id, doc.agentId, seq, content);
        fts.insert.run(lastInsertRowid, content);
      });
      this.frequencies.clear();
      this.totals.clear();
      return { document: this.get(id)!, created: true };
    }).immediate();
  }

  delete(id: string): boolean {
    const document = this.get(id);
    if (!document) return false;
    const fts = this.ftsOf(document.agentId);
    this.db.transaction(() => {
      fts.remove.run(id);
      this.deleteDoc.run(id);
      this.frequencies.clear();
      this.totals.clear();
    }).immediate();
    return true;
  }

  /**
   * The terms worth ranking by: a term in more than half an agent's chunks gets next to no
   * weight from bm25 (its IDF floors), yet scoring every chunk it matches is what makes a search
   * slow on a large base. Such terms are dropped (the rarest is kept if nothing else is left),
   * and at most the 8 rarest terms are used.
   */
  private discriminating(agentId: string, fts: AgentFts, total: number, terms: string[]): string[] {
    if (terms.length === 0) return terms;
    if (this.frequencies.size > 50_000) this.frequencies.clear();
    const counted = terms.map((term) => {
      const key = `${agentId}\u0000${term}`;
      let n = this.frequencies.get(key);
      if (n === undefined) {
        n = fts.count.get(`"${term}"`)!.n;
        this.frequencies.set(key, n);
      }
      return { term, n };
    });
    const present = counted.filter((t) => t.n > 0).sort((a, b) => a.n - b.n);
    if (!present.length) return [];
    const useful = present.filter((t) => t.n <= total / 2);
    return (useful.length ? useful : present.slice(0, 1)).slice(0, 8).map((t) => t.term);
  }

  /** the agent's best passages for a question, best first; score is -bm25 (higher is better) */
  search(agentId: string, question: string, limit = 4): KnowledgePassage[] {
    let total = this.totals.get(agentId);
    if (total === undefined) {
      total = this.chunkTotal.get(agentId)!.n;
      this.totals.set(agentId, total);
    }
    if (total === 0) return [];
    const fts = this.ftsOf(agentId);
    const match = ftsQuery(this.discriminating(agentId, fts, total, queryTerms(question)));
    if (!match) return [];
    return fts.search.all(match, limit).map((r) => ({
      documentId: r.document_id,
      filename: r.filename,
      chunkId: r.id,
      score: Math.round(-r.rank * 10_000) / 10_000,
      content: r.content,
    }));
  }
}
