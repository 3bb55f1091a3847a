import { randomBytes } from 'node:crypto';
import { bytesOf, nearestVectors, normOf, vectorOf, type StoredVector } from '../nearest-vectors.js';
import {
  FREQUENT_TERM_SAMPLE,
  frequentTermFrequency,
  SMALL_DOCUMENT_CHUNKS,
  SMALL_DOCUMENTS,
  termCountLimit,
  termWeight,
  type KnowledgeCandidate,
  type KnowledgeCandidates,
  type KnowledgeDocument,
  type KnowledgeRepo,
} from '../port.js';
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

type CandidateRow = { rowid: number; id: string; document_id: string; filename: string; content: string; terms: string };

/**
 * One agent's full-text index: a contentless FTS5 table over the chunks' index form (the text
 * lives in knowledge_chunks). knowledge/ has segmented and stemmed it already, so the `ascii`
 * tokenizer only splits at spaces (every non-ASCII character is part of a word to it).
 */
class AgentFts {
  readonly insert;
  readonly remove;
  readonly matching;
  readonly last;

  constructor(db: SqliteDatabase, agentId: string) {
    // agent ids are [A-Za-z0-9._-]; hex keeps the table name a plain identifier whatever they hold
    const table = `knowledge_terms_${Buffer.from(agentId, 'utf8').toString('hex')}`;
    db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS ${table} USING fts5(terms, content = '', contentless_delete = 1, tokenize = 'ascii')`);
    this.insert = db.prepare<[number | bigint, string]>(`INSERT INTO ${table} (rowid, terms) VALUES (?, ?)`);
    this.remove = db.prepare<[string]>(`DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM knowledge_chunks WHERE document_id = ?)`);
    // FTS5 streams a term's rows in rowid order: reading the first n costs n, whatever the term's
    // size; ranking (bm25) or a rowid range would read its whole list
    this.matching = db.prepare<[string, number], number>(`SELECT rowid FROM ${table} WHERE ${table} MATCH ? LIMIT ?`).pluck();
    this.last = db.prepare<[string, number], number>(`SELECT rowid FROM ${table} WHERE ${table} MATCH ? ORDER BY rowid DESC LIMIT ?`).pluck();
  }
}

/** every term quoted (so no word is read as FTS5 syntax) and OR-ed */
const ftsQuery = (terms: string[]) => terms.map((t) => `"${t.replaceAll('"', '""')}"`).join(' OR ');

/**
 * The knowledge base of every agent in the SQLite file: documents, their chunks, and one FTS5
 * index per agent (so term counts and bm25 are the agent's own). Writes of one document become
 * visible at once: the document stays 'indexing' (hidden) while its chunks are written in batches.
 */
export function sqliteKnowledgeRepo(db: SqliteDatabase): KnowledgeRepo {
  const byHash = db.prepare<[string, string], DocumentRow>('SELECT * FROM knowledge_documents WHERE agent_id = ? AND sha256 = ?');
  const byId = db.prepare<[string], DocumentRow>("SELECT * FROM knowledge_documents WHERE id = ? AND status = 'ready'");
  const byAgent = db.prepare<[string], DocumentRow>("SELECT * FROM knowledge_documents WHERE agent_id = ? AND status = 'ready' ORDER BY created_at, rowid");
  const all = db.prepare<[], DocumentRow>("SELECT * FROM knowledge_documents WHERE status = 'ready' ORDER BY created_at, rowid");
  const counts = db.prepare<[], { agent_id: string; n: number }>("SELECT agent_id, COUNT(*) AS n FROM knowledge_documents WHERE status = 'ready' GROUP BY agent_id");
  const chunkTotal = db.prepare<[string], { n: number }>("SELECT coalesce(sum(chunk_count), 0) AS n FROM knowledge_documents WHERE agent_id = ? AND status = 'ready'");
  const smallDocuments = db.prepare<[string, number, number], number>(
    `SELECT c.rowid FROM (SELECT id FROM knowledge_documents WHERE agent_id = ? AND status = 'ready' AND chunk_count <= ?
                           ORDER BY created_at DESC, rowid DESC LIMIT ?) d
       JOIN knowledge_chunks c ON c.document_id = d.id`,
  ).pluck();
  const rowsOf = db.prepare<[string], CandidateRow>(
    `SELECT c.rowid, c.id, c.document_id, d.filename, c.content, c.terms
       FROM json_each(?) AS k
       JOIN knowledge_chunks c ON c.rowid = k.value
       JOIN knowledge_documents d ON d.id = c.document_id AND d.status = 'ready'
      ORDER BY k.key`,
  );
  const markReady = db.prepare<[string]>("UPDATE knowledge_documents SET status = 'ready' WHERE id = ?");
  const unfinished = db.prepare<[], DocumentRow>("SELECT * FROM knowledge_documents WHERE status = 'indexing'");
  const insertDoc = db.prepare(
    `INSERT INTO knowledge_documents (id, agent_id, filename, bytes, mime_type, sha256, status, chunk_count, metadata, created_at, embedding_model)
     VALUES (@id, @agent_id, @filename, @bytes, @mime_type, @sha256, @status, @chunk_count, @metadata, @created_at, @embedding_model)`,
  );
  const insertChunk = db.prepare<[string, string, string, number, string, string, Buffer | null]>(
    'INSERT INTO knowledge_chunks (id, document_id, agent_id, seq, content, terms, embedding) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const deleteDoc = db.prepare<[string]>('DELETE FROM knowledge_documents WHERE id = ?');
  const unindexedRows = db.prepare<[number], { id: string; content: string }>('SELECT id, content FROM knowledge_chunks WHERE terms IS NULL ORDER BY rowid LIMIT ?');
  const setTerms = db.prepare<[string, string], { rowid: number; agent_id: string }>('UPDATE knowledge_chunks SET terms = ? WHERE id = ? RETURNING rowid, agent_id');
  const anyUnindexed = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM (SELECT 1 FROM knowledge_chunks WHERE terms IS NULL LIMIT 1)');
  const oldTables = db.prepare<[], { name: string }>(
    // the FTS5 tables themselves: their shadow tables (_data, _idx, ...) go with them
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'knowledge_fts_*' AND sql LIKE 'CREATE VIRTUAL TABLE%'",
  );
  const embedded = db.prepare<[string, string], { rowid: number; embedding: Buffer }>(
    `SELECT c.rowid, c.embedding FROM knowledge_chunks c JOIN knowledge_documents d ON d.id = c.document_id AND d.status = 'ready'
      WHERE d.agent_id = ? AND d.embedding_model = ? AND c.embedding IS NOT NULL`,
  );

  const ftsByAgent = new Map<string, AgentFts>();
  /** the chunks (rowids) holding a term, up to the count limit, by agent and term; cleared on every write */
  const postings = new Map<string, number[]>();
  /** chunks per agent, cleared on every write: every hook run searches, and most agents have no documents */
  const totals = new Map<string, number>();
  /** the chunks of an agent's newest small documents, cleared on every write */
  const smallChunks = new Map<string, number[]>();
  /** embeddings by agent and model, read once and cleared on every write */
  const vectors = new Map<string, StoredVector[]>();
  const forget = () => {
    postings.clear();
    totals.clear();
    smallChunks.clear();
    vectors.clear();
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
  const cached = <T>(map: Map<string, T>, key: string, read: () => T): T => {
    let value = map.get(key);
    if (value === undefined) {
      if (map.size > 50_000) map.clear();
      value = read();
      map.set(key, value);
    }
    return value;
  };
  const toCandidate = (r: CandidateRow): KnowledgeCandidate => ({ documentId: r.document_id, filename: r.filename, chunkId: r.id, content: r.content, terms: r.terms });
  const rows = (rowids: number[]) => (rowids.length === 0 ? [] : rowsOf.all(JSON.stringify(rowids)));

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
            embedding_model: doc.embeddingModel ?? null,
          });
          return { id };
        })
        .immediate();
      if (started.existing) return { document: started.existing, created: false };
      const id = started.id!;
      const insertBatch = db.transaction((from: number) => {
        for (let seq = from; seq < Math.min(from + CHUNKS_PER_TRANSACTION, chunks.length); seq++) {
          const chunk = chunks[seq]!;
          const { lastInsertRowid } = insertChunk.run(newId('chunk'), id, doc.agentId, seq, chunk.content, chunk.terms, chunk.embedding ? bytesOf(chunk.embedding) : null);
          fts.insert.run(lastInsertRowid, chunk.terms);
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
    async search(agentId, terms, limit): Promise<KnowledgeCandidates> {
      const total = cached(totals, agentId, () => chunkTotal.get(agentId)!.n);
      if (total === 0 || terms.length === 0) return { total, frequencies: terms.map(() => 0), candidates: [] };
      const fts = ftsOf(agentId);
      const countLimit = termCountLimit(total);
      const held = terms.map((term) => cached(postings, `${agentId}\u0000${term}`, () => fts.matching.all(ftsQuery([term]), countLimit + 1)));
      const frequent = terms.filter((_, i) => held[i]!.length > countLimit);
      const frequencies = held.map((rows) => (rows.length > countLimit ? frequentTermFrequency(total) : rows.length));
      // the other terms' chunks are all known: the ones holding the most, by weight, newest first among
      // equals; grouped by weight (a few distinct sums), as sorting thousands of rows cost more than the query
      const weights = new Map<number, number>();
      held.forEach((rows, i) => {
        if (rows.length > countLimit) return;
        const w = termWeight(frequencies[i]!, total);
        for (const rowid of rows) weights.set(rowid, (weights.get(rowid) ?? 0) + w);
      });
      const byWeight = new Map<number, number[]>();
      for (const [rowid, w] of weights) {
        const group = byWeight.get(w);
        if (group) group.push(rowid);
        else byWeight.set(w, [rowid]);
      }
      const chosen = new Set<number>();
      for (const w of [...byWeight.keys()].sort((a, b) => b - a)) {
        for (const rowid of byWeight.get(w)!.sort((a, b) => b - a)) {
          if (chosen.size >= limit) break;
          chosen.add(rowid);
        }
      }
      if (frequent.length) {
        const query = ftsQuery(frequent);
        for (const rowid of fts.matching.all(query, FREQUENT_TERM_SAMPLE)) chosen.add(rowid);
        for (const rowid of fts.last.all(query, FREQUENT_TERM_SAMPLE)) chosen.add(rowid);
      }
      const found = rows([...chosen]);
      if (frequent.length) {
        const small = cached(smallChunks, agentId, () => smallDocuments.all(agentId, SMALL_DOCUMENT_CHUNKS, SMALL_DOCUMENTS)).filter((r) => !chosen.has(r));
        const wanted = new Set(frequent);
        for (const row of rows(small)) if (row.terms.split(' ').some((t) => wanted.has(t))) found.push(row);
      }
      return { total, frequencies, candidates: found.map(toCandidate) };
    },
    async unindexed(limit) {
      return unindexedRows.all(limit).map((r) => ({ chunkId: r.id, content: r.content }));
    },
    async reindex(chunks) {
      db.transaction(() => {
        for (const { chunkId, terms } of chunks) {
          const row = setTerms.get(terms, chunkId);
          if (row) ftsOf(row.agent_id).insert.run(row.rowid, terms);
        }
        // the last of them: the tables of the older index form are no longer read
        if (anyUnindexed.get()!.n === 0) for (const { name } of oldTables.all()) db.exec(`DROP TABLE ${name}`);
        forget();
      }).immediate();
    },
    async nearest(agentId, model, vector, limit) {
      const stored = cached(vectors, `${agentId}\u0000${model}`, () =>
        embedded.all(agentId, model).map((r) => {
          const v = vectorOf(r.embedding);
          return { key: r.rowid, vector: v, norm: normOf(v) };
        }),
      );
      const found = nearestVectors(stored, vector, limit);
      const byRowid = new Map(rows(found.map((f) => f.key)).map((r) => [r.rowid, toCandidate(r)]));
      return found.flatMap((f) => {
        const c = byRowid.get(f.key);
        return c ? [{ ...c, similarity: f.similarity }] : [];
      });
    },
  };
}
