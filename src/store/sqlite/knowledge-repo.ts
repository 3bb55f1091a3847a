import { randomBytes } from 'node:crypto';
import { bytesOf, nearestVectors, normOf, vectorOf, type StoredVector } from '../rows/nearest-vectors.js';
import {
  FREQUENT_TERM_SAMPLE,
  frequentTermFrequency,
  SMALL_DOCUMENT_CHUNKS,
  SMALL_DOCUMENTS,
  termCountLimit,
  termWeight,
  type KnowledgeCandidate,
  type KnowledgeCandidates,
  type KnowledgeRepo,
  type NewKnowledgeChunks,
} from '../port.js';
import { chunkBatches } from '../rows/chunk-batches.js';
import { toKnowledgeDocument, type KnowledgeDocumentRow } from '../rows/knowledge-rows.js';
import { heaviestRowids } from './heaviest-rowids.js';
import type { SqliteDatabase } from './open-database.js';
import type { OthersCommits } from './others-commits.js';
import { compactRowids, TermChunksCache, type TermChunks } from './term-chunks.js';

type DocumentRow = KnowledgeDocumentRow<string>;
const toDocument = (r: DocumentRow) => toKnowledgeDocument(r, (text) => JSON.parse(text) as Record<string, unknown>);

/**
 * Chunks written per transaction. SQLite writes block the event loop, and a 20 MB document is
 * ~27k chunks: one transaction for all of them stalled every other request ~2 s. Batches of this
 * size take a few milliseconds each, and the loop serves other requests between them.
 */
const CHUNKS_PER_TRANSACTION = 500;

/** chunks kept after a search read them (~1.5 KB each with their index form) */
const RECENT_CHUNKS = 1024;

const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

/** terms is null while the chunk waits to be indexed again (KnowledgeIndex.upgrade) */
type ChunkRow = { rowid: number; id: string; document_id: string; content: string; terms: string | null };

/**
 * One agent's full-text index: a contentless FTS5 table over the chunks' index form (the text
 * lives in knowledge_chunks). knowledge/ has segmented and stemmed it already, so the `ascii`
 * tokenizer only splits at spaces (every non-ASCII character is part of a word to it).
 */
class AgentFts {
  readonly insert;
  readonly remove;
  readonly removeChunk;
  readonly matching;
  readonly last;

  constructor(db: SqliteDatabase, agentId: string) {
    // agent ids are [A-Za-z0-9._-]; hex keeps the table name a plain identifier whatever they hold
    const table = `knowledge_terms_${Buffer.from(agentId, 'utf8').toString('hex')}`;
    db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS ${table} USING fts5(terms, content = '', contentless_delete = 1, tokenize = 'ascii')`);
    this.insert = db.prepare<[number | bigint, string]>(`INSERT INTO ${table} (rowid, terms) VALUES (?, ?)`);
    this.remove = db.prepare<[string]>(`DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM knowledge_chunks WHERE document_id = ?)`);
    this.removeChunk = db.prepare<[number | bigint]>(`DELETE FROM ${table} WHERE rowid = ?`);
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
 * visible at once: the document stays 'indexing' (hidden) while its chunks are written, a
 * transaction per batch as the batches arrive; one a failure or a crash left so is removed.
 */
export function sqliteKnowledgeRepo(db: SqliteDatabase, othersCommits: OthersCommits): KnowledgeRepo {
  const byHash = db.prepare<[string, string], DocumentRow>('SELECT * FROM knowledge_documents WHERE agent_id = ? AND sha256 = ?');
  const readyByHash = db.prepare<[string, string], DocumentRow>("SELECT * FROM knowledge_documents WHERE agent_id = ? AND sha256 = ? AND status = 'ready'");
  const byId = db.prepare<[string], DocumentRow>("SELECT * FROM knowledge_documents WHERE id = ? AND status = 'ready'");
  const byAgent = db.prepare<[string], DocumentRow>("SELECT * FROM knowledge_documents WHERE agent_id = ? AND status = 'ready' ORDER BY created_at, rowid");
  const all = db.prepare<[], DocumentRow>("SELECT * FROM knowledge_documents WHERE status = 'ready' ORDER BY created_at, rowid");
  const counts = db.prepare<[], { agent_id: string; n: number }>("SELECT agent_id, COUNT(*) AS n FROM knowledge_documents WHERE status = 'ready' GROUP BY agent_id");
  const chunkTotal = db.prepare<[string], { n: number }>("SELECT coalesce(sum(chunk_count), 0) AS n FROM knowledge_documents WHERE agent_id = ? AND status = 'ready'");
  const smallDocuments = db.prepare<[string, number, number], { rowid: number; terms: string }>(
    `SELECT c.rowid, c.terms FROM (SELECT id FROM knowledge_documents WHERE agent_id = ? AND status = 'ready' AND chunk_count <= ?
                                    ORDER BY created_at DESC, rowid DESC LIMIT ?) d
       JOIN knowledge_chunks c ON c.document_id = d.id`,
  );
  const chunksAt = db.prepare<[string], ChunkRow>(
    'SELECT c.rowid, c.id, c.document_id, c.content, c.terms FROM json_each(?) AS k JOIN knowledge_chunks c ON c.rowid = k.value ORDER BY k.key',
  );
  const readyNames = db.prepare<[string], { id: string; filename: string }>("SELECT id, filename FROM knowledge_documents WHERE agent_id = ? AND status = 'ready'");
  const markReady = db.prepare<[number, string]>("UPDATE knowledge_documents SET status = 'ready', chunk_count = ? WHERE id = ?");
  const unfinished = db.prepare<[], DocumentRow>("SELECT * FROM knowledge_documents WHERE status = 'indexing'");
  const insertDoc = db.prepare(
    `INSERT INTO knowledge_documents (id, agent_id, filename, bytes, mime_type, sha256, status, chunk_count, metadata, created_at, embedding_model)
     VALUES (@id, @agent_id, @filename, @bytes, @mime_type, @sha256, @status, @chunk_count, @metadata, @created_at, @embedding_model)`,
  );
  const insertChunk = db.prepare<[string, string, string, number, string, string, Buffer | null]>(
    'INSERT INTO knowledge_chunks (id, document_id, agent_id, seq, content, terms, embedding) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const chunkTexts = db.prepare<[string], string>('SELECT content FROM knowledge_chunks WHERE document_id = ? ORDER BY seq').pluck();
  const deleteDoc = db.prepare<[string]>('DELETE FROM knowledge_documents WHERE id = ?');
  const updateMetadata = db.prepare<[string | null, string]>("UPDATE knowledge_documents SET metadata = ? WHERE id = ? AND status = 'ready'");
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
  /** what a search reads of each term, by agent and term; cleared on every write */
  const termChunks = new TermChunksCache();
  /** chunks per agent, cleared on every write: every hook run searches, and most agents have no documents */
  const totals = new Map<string, number>();
  /** the chunks (rowid and terms) of an agent's newest small documents, cleared on every write */
  const smallChunks = new Map<string, { rowid: number; terms: Set<string> }[]>();
  /**
   * the names of an agent's ready documents by id, cleared on every write: a chunk is a candidate
   * only while its document is ready (one being written has chunks in the index already, and is hidden)
   */
  const documentNames = new Map<string, Map<string, string>>();
  /**
   * the chunks read last, by rowid, cleared on every write: questions about the same things meet the
   * same chunks (a frequent term's first and last ones above all), and reading a chunk is a page read
   */
  const recentChunks = new Map<number, ChunkRow>();
  /** embeddings by agent and model, read once and cleared on every write */
  const vectors = new Map<string, StoredVector[]>();
  /** another connection's commit (another herald process on the file): what is held may be stale then */
  let seenVersion = othersCommits.now();
  const forget = () => {
    termChunks.clear();
    totals.clear();
    smallChunks.clear();
    documentNames.clear();
    recentChunks.clear();
    vectors.clear();
  };
  /** every run a turn executes asks (hasChunks, then its search): others-commits.ts answers once a turn */
  const forgetOthersWrites = () => {
    const version = othersCommits.now();
    if (version === seenVersion) return;
    seenVersion = version;
    forget();
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
  /**
   * the chunks at these rowids whose document is ready, in the order given, in one read; the
   * documents' names come from memory, not from a join per chunk
   */
  const candidatesAt = (agentId: string, rowids: number[]): Map<number, KnowledgeCandidate> => {
    const found = new Map<number, KnowledgeCandidate>();
    if (rowids.length === 0) return found;
    const missing = rowids.filter((rowid) => !recentChunks.has(rowid));
    if (missing.length) {
      for (const row of chunksAt.all(JSON.stringify(missing))) recentChunks.set(row.rowid, row);
      for (const [oldest] of recentChunks) {
        if (recentChunks.size <= RECENT_CHUNKS) break;
        recentChunks.delete(oldest);
      }
    }
    const names = cached(documentNames, agentId, () => new Map(readyNames.all(agentId).map((d) => [d.id, d.filename])));
    for (const rowid of rowids) {
      const row = recentChunks.get(rowid);
      const filename = row && names.get(row.document_id);
      if (filename !== undefined) found.set(rowid, { documentId: row!.document_id, filename, chunkId: row!.id, content: row!.content, terms: row!.terms ?? '' });
    }
    return found;
  };
  /** a term's chunks as the search reads them: all of them up to the count limit, else the first and last few */
  const readTerm = (fts: AgentFts, term: string, countLimit: number): TermChunks => {
    const query = ftsQuery([term]);
    const rowids = fts.matching.all(query, countLimit + 1);
    if (rowids.length <= countLimit) return { frequent: false, rowids: compactRowids(rowids) };
    return { frequent: true, first: compactRowids(rowids.slice(0, FREQUENT_TERM_SAMPLE)), last: compactRowids(fts.last.all(query, FREQUENT_TERM_SAMPLE)) };
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
      // the document row first, hidden ('indexing') until its last chunk is in; its count then
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
            chunk_count: 0,
            metadata: doc.metadata ? JSON.stringify(doc.metadata) : null,
            created_at: Date.now(),
            embedding_model: doc.embeddingModel ?? null,
          });
          return { id };
        })
        .immediate();
      if (started.existing) return { document: started.existing, created: false };
      const id = started.id!;
      const insertBatch = db.transaction((batch: NewKnowledgeChunks, from: number) => {
        for (let i = 0; i < batch.length; i++) {
          const chunk = batch.at(i)!;
          const { lastInsertRowid } = insertChunk.run(newId('chunk'), id, doc.agentId, from + i, chunk.content, chunk.terms, chunk.embedding ? bytesOf(chunk.embedding) : null);
          fts.insert.run(lastInsertRowid, chunk.terms);
        }
      });
      let count = 0;
      try {
        for await (const batch of chunkBatches(chunks, CHUNKS_PER_TRANSACTION)) {
          if (count > 0) await new Promise((resolve) => setImmediate(resolve));
          insertBatch.immediate(batch, count);
          count += batch.length;
        }
        markReady.run(count, id);
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
    async setMetadata(id, metadata) {
      updateMetadata.run(metadata ? JSON.stringify(metadata) : null, id);
      return get(id);
    },
    async findByHash(agentId, sha256) {
      const row = readyByHash.get(agentId, sha256);
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
    hasChunks(agentId) {
      forgetOthersWrites();
      return cached(totals, agentId, () => chunkTotal.get(agentId)!.n) > 0;
    },
    async search(agentId, terms, limit): Promise<KnowledgeCandidates> {
      forgetOthersWrites();
      const total = cached(totals, agentId, () => chunkTotal.get(agentId)!.n);
      if (total === 0 || terms.length === 0) return { total, frequencies: terms.map(() => 0), candidates: [] };
      const fts = ftsOf(agentId);
      const countLimit = termCountLimit(total);
      const held = terms.map((term) => termChunks.get(agentId, term, () => readTerm(fts, term, countLimit)));
      const frequencies = held.map((t) => (t.frequent ? frequentTermFrequency(total) : t.rowids.length));
      // the other terms' chunks are all known: the ones holding the most, by weight, newest first among equals
      const weighted = held.flatMap((t, i) => (t.frequent ? [] : [{ rowids: t.rowids, weight: termWeight(frequencies[i]!, total) }]));
      const chosen = new Set(heaviestRowids(weighted, limit));
      const frequent = terms.filter((_, i) => held[i]!.frequent);
      if (frequent.length) {
        // the first and last chunks holding any of them: the least and greatest of each one's first and last
        const ends = held.filter((t) => t.frequent);
        const first = [...new Set(ends.flatMap((t) => [...t.first]))].sort((a, b) => a - b).slice(0, FREQUENT_TERM_SAMPLE);
        const last = [...new Set(ends.flatMap((t) => [...t.last]))].sort((a, b) => b - a).slice(0, FREQUENT_TERM_SAMPLE);
        for (const rowid of [...first, ...last]) chosen.add(rowid);
        const small = cached(smallChunks, agentId, () => smallDocuments.all(agentId, SMALL_DOCUMENT_CHUNKS, SMALL_DOCUMENTS).map((c) => ({ rowid: c.rowid, terms: new Set(c.terms?.split(' ')) })));
        for (const c of small) if (frequent.some((t) => c.terms.has(t))) chosen.add(c.rowid);
      }
      return { total, frequencies, candidates: [...candidatesAt(agentId, [...chosen]).values()] };
    },
    async unindexed(limit) {
      return unindexedRows.all(limit).map((r) => ({ chunkId: r.id, content: r.content }));
    },
    async reindex(chunks) {
      db.transaction(() => {
        for (const { chunkId, terms } of chunks) {
          const row = setTerms.get(terms, chunkId);
          if (!row) continue;
          // the chunk's row of an older index form, when it has one, is replaced
          const fts = ftsOf(row.agent_id);
          fts.removeChunk.run(row.rowid);
          fts.insert.run(row.rowid, terms);
        }
        // the last of them: the tables of the older index form are no longer read
        if (anyUnindexed.get()!.n === 0) for (const { name } of oldTables.all()) db.exec(`DROP TABLE ${name}`);
        forget();
      }).immediate();
    },
    async chunksOf(documentId) {
      return chunkTexts.all(documentId);
    },
    async nearest(agentId, model, vector, limit) {
      forgetOthersWrites();
      const stored = cached(vectors, `${agentId}\u0000${model}`, () =>
        embedded.all(agentId, model).map((r) => {
          const v = vectorOf(r.embedding);
          return { key: r.rowid, vector: v, norm: normOf(v) };
        }),
      );
      const found = nearestVectors(stored, vector, limit);
      const byRowid = candidatesAt(agentId, found.map((f) => f.key));
      return found.flatMap((f) => {
        const c = byRowid.get(f.key);
        return c ? [{ ...c, similarity: f.similarity }] : [];
      });
    },
  };
}
