import { randomBytes } from 'node:crypto';
import type { KnowledgeDocument, KnowledgeHit, KnowledgeRepo } from '../port.js';
import type { SqliteDatabase } from './open-database.js';

interface DocumentRow {
  id: string;
  agent_id: string;
  filename: string;
  bytes: number;
  mime_type: string;
  sha256: string;
  status: 'ready' | 'indexing';
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
  status: 'ready',
  chunkCount: r.chunk_count,
  metadata: r.metadata ? (JSON.parse(r.metadata) as Record<string, unknown>) : null,
  createdAt: r.created_at,
});

/**
 * Chunks written per transaction. SQLite writes block the event loop, and a 20 MB document is
 * ~27k chunks: one transaction for all of them stalled every other request ~2 s. Batches of this
 * size take a few milliseconds each, and the loop serves other requests between them.
 */
const CHUNKS_PER_TRANSACTION = 500;

const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

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
         JOIN knowledge_documents d ON d.id = c.document_id AND d.status = 'ready'
        ORDER BY top.rank`,
    );
  }
}

/** every term quoted (so no word is read as FTS5 syntax) and OR-ed: bm25 ranks chunks holding more, and rarer, terms first */
const ftsQuery = (terms: string[]) => terms.map((t) => `"${t.replaceAll('"', '""')}"`).join(' OR ');

/**
 * The knowledge base of every agent in the SQLite file: documents, their chunks, and one FTS5
 * index per agent ranked by bm25 (so term statistics are the agent's own). Writes of one
 * document become visible at once: the document stays 'indexing' (hidden) while its chunks are
 * written in batches.
 */
export function sqliteKnowledgeRepo(db: SqliteDatabase): KnowledgeRepo {
  const byHash = db.prepare<[string, string], DocumentRow>('SELECT * FROM knowledge_documents WHERE agent_id = ? AND sha256 = ?');
  const byId = db.prepare<[string], DocumentRow>("SELECT * FROM knowledge_documents WHERE id = ? AND status = 'ready'");
  const byAgent = db.prepare<[string], DocumentRow>("SELECT * FROM knowledge_documents WHERE agent_id = ? AND status = 'ready' ORDER BY created_at, rowid");
  const all = db.prepare<[], DocumentRow>("SELECT * FROM knowledge_documents WHERE status = 'ready' ORDER BY created_at, rowid");
  const counts = db.prepare<[], { agent_id: string; n: number }>("SELECT agent_id, COUNT(*) AS n FROM knowledge_documents WHERE status = 'ready' GROUP BY agent_id");
  const chunkTotal = db.prepare<[string], { n: number }>("SELECT coalesce(sum(chunk_count), 0) AS n FROM knowledge_documents WHERE agent_id = ? AND status = 'ready'");
  const markReady = db.prepare<[string]>("UPDATE knowledge_documents SET status = 'ready' WHERE id = ?");
  const unfinished = db.prepare<[], DocumentRow>("SELECT * FROM knowledge_documents WHERE status = 'indexing'");
  const insertDoc = db.prepare(
    `INSERT INTO knowledge_documents (id, agent_id, filename, bytes, mime_type, sha256, status, chunk_count, metadata, created_at)
     VALUES (@id, @agent_id, @filename, @bytes, @mime_type, @sha256, @status, @chunk_count, @metadata, @created_at)`,
  );
  const insertChunk = db.prepare<[string, string, string, number, string]>(
    'INSERT INTO knowledge_chunks (id, document_id, agent_id, seq, content) VALUES (?, ?, ?, ?, ?)',
  );
  const deleteDoc = db.prepare<[string]>('DELETE FROM knowledge_documents WHERE id = ?');

  const ftsByAgent = new Map<string, AgentFts>();
  /** chunks holding a term, by agent and term; cleared on every write */
  const frequencies = new Map<string, number>();
  /** chunks per agent, cleared on every write: every hook run searches, and most agents have no documents */
  const totals = new Map<string, number>();
  const forget = () => {
    frequencies.clear();
    totals.clear();
  };

  const ftsOf = (agentId: string) => {
    let fts = ftsByAgent.get(agentId);
    if (!fts) {
      fts = new AgentFts(db, agentId);
      ftsByAgent.set(agentId, fts);
    }
    return fts;
  };
  const get = (id: string) => {
    const row = byId.get(id);
    return row && toDocument(row);
  };

  /**
   * The terms worth ranking by: a term in more than half an agent's chunks gets next to no
   * weight from bm25 (its IDF floors), yet scoring every chunk it matches is what makes a search
   * slow on a large base. Such terms are dropped (the rarest is kept if nothing else is left),
   * and at most the 8 rarest terms are used.
   */
  const discriminating = (agentId: string, fts: AgentFts, total: number, terms: string[]): string[] => {
    if (terms.length === 0) return terms;
    if (frequencies.size > 50_000) frequencies.clear();
    const counted = terms.map((term) => {
      const key = `${agentId}\u0000${term}`;
      let n = frequencies.get(key);
      if (n === undefined) {
        n = fts.count.get(ftsQuery([term]))!.n;
        frequencies.set(key, n);
      }
      return { term, n };
    });
    const present = counted.filter((t) => t.n > 0).sort((a, b) => a.n - b.n);
    if (!present.length) return [];
    const useful = present.filter((t) => t.n <= total / 2);
    return (useful.length ? useful : present.slice(0, 1)).slice(0, 8).map((t) => t.term);
  };

  const removeDocument = (fts: AgentFts, id: string) =>
    db
      .transaction(() => {
        fts.remove.run(id);
        deleteDoc.run(id);
        forget();
      })
      .immediate();

  // a document whose chunks were still being written when the process stopped is removed: its
  // upload never got its answer, and the same file uploaded again is indexed afresh
  for (const row of unfinished.all()) removeDocument(ftsOf(row.agent_id), row.id);

  return {
    async add(doc, chunks) {
      const fts = ftsOf(doc.agentId);
      // the document row first, hidden ('indexing') until its last chunk is in
      const started = db
        .transaction(() => {
          const existing = byHash.get(doc.agentId, doc.sha256);
          if (existing) return { existing: toDocument(existing) };
          const id = newId('doc');
          insertDoc.run({
            id,
            agent_id: doc.agentId,
            filename: doc.filename,
            bytes: doc.bytes,
            mime_type: doc.mimeType,
            sha256: doc.sha256,
            status: 'indexing',
            chunk_count: chunks.length,
            metadata: doc.metadata ? JSON.stringify(doc.metadata) : null,
            created_at: Date.now(),
          });
          return { id };
        })
        .immediate();
      if (started.existing) return { document: started.existing, created: false };
      const id = started.id!;
      const insertBatch = db.transaction((from: number) => {
        for (let seq = from; seq < Math.min(from + CHUNKS_PER_TRANSACTION, chunks.length); seq++) {
          const { lastInsertRowid } = insertChunk.run(newId('chunk'), id, doc.agentId, seq, chunks[seq]!);
          fts.insert.run(lastInsertRowid, chunks[seq]!);
        }
      });
      try {
        for (let from = 0; from < chunks.length; from += CHUNKS_PER_TRANSACTION) {
          if (from > 0) await new Promise((resolve) => setImmediate(resolve));
          insertBatch.immediate(from);
        }
        markReady.run(id);
      } catch (error) {
        removeDocument(fts, id);
        throw error;
      }
      forget();
      return { document: get(id)!, created: true };
    },
    async get(id) {
      return get(id);
    },
    async findByHash(agentId, sha256) {
      const row = byHash.get(agentId, sha256);
      return row && toDocument(row);
    },
    async list(agentId) {
      return (agentId === undefined ? all.all() : byAgent.all(agentId)).map(toDocument);
    },
    async documentCounts() {
      return new Map(counts.all().map((r) => [r.agent_id, r.n]));
    },
    async delete(id) {
      const document = get(id);
      if (!document) return false;
      removeDocument(ftsOf(document.agentId), id);
      return true;
    },
    async search(agentId, terms, limit): Promise<KnowledgeHit[]> {
      let total = totals.get(agentId);
      if (total === undefined) {
        total = chunkTotal.get(agentId)!.n;
        totals.set(agentId, total);
      }
      if (total === 0) return [];
      const fts = ftsOf(agentId);
      const chosen = discriminating(agentId, fts, total, terms);
      if (!chosen.length) return [];
      return fts.search.all(ftsQuery(chosen), limit).map((r) => ({
        documentId: r.document_id,
        filename: r.filename,
        chunkId: r.id,
        score: Math.round(-r.rank * 10_000) / 10_000,
        content: r.content,
      }));
    },
  };
}
