import { randomBytes } from 'node:crypto';
import type pg from 'pg';
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
} from '../port.js';
import { toKnowledgeDocument, type KnowledgeDocumentRow } from '../rows/knowledge-rows.js';
import { chunkBatches } from '../rows/chunk-batches.js';
import { prepared, query, transaction } from './pg-pool.js';

type DocumentRow = KnowledgeDocumentRow<Record<string, unknown>>;
const toDocument = (r: DocumentRow) => toKnowledgeDocument(r, (parsed) => parsed);

/** a term as a tsquery operand: quoted, as the index form holds no quote */
const operand = (term: string) => `'${term}'`;
const DOCUMENT = 'id, agent_id, filename, bytes, mime_type, sha256, status, chunk_count, metadata, created_at';
const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;
/** chunks per INSERT of a document's chunks (all in its one transaction) */
const CHUNKS_PER_STATEMENT = 500;

/** terms is null while the chunk waits to be indexed again (KnowledgeIndex.upgrade) */
type CandidateRow = { seq_no: string; id: string; document_id: string; filename: string; content: string; terms: string | null };
const toCandidate = (r: CandidateRow): KnowledgeCandidate => ({ documentId: r.document_id, filename: r.filename, chunkId: r.id, content: r.content, terms: r.terms ?? '' });
const CANDIDATE = 'c.seq_no, c.id, c.document_id, d.filename, c.content, c.terms';
/** every turn of an agent asks it before searching */
const CHUNK_TOTAL = prepared('chunk_total', 'SELECT COALESCE(SUM(chunk_count), 0)::int AS total FROM knowledge_documents WHERE agent_id = $1');

/**
 * The knowledge base in PostgreSQL: documents, and chunks whose index form (segmented and
 * stemmed by knowledge/) makes a `simple` tsvector under a GIN index, searched per agent with
 * the same candidate rule as the SQLite adapter (ts_rank where it uses bm25). Embeddings are
 * read once per agent and model, and again when the agent's embedded chunks change.
 */
export function postgresKnowledgeRepo(pool: pg.Pool): KnowledgeRepo {
  const vectors = new Map<string, { mark: string; stored: StoredVector[] }>();
  /**
   * Each agent's chunk total, one read shared by the runs that ask while it is in flight or in the
   * event-loop turn it answers in (a turn's runs start together: every one asks before searching).
   * Held no longer than that, so what another replica wrote is seen as soon as a read after it
   * could see it; this process's own writes drop it at once.
   */
  const totals = new Map<string, Promise<number>>();
  const chunkTotal = (agentId: string): Promise<number> => {
    let total = totals.get(agentId);
    if (!total) {
      const read = query<{ total: number }>(pool, CHUNK_TOTAL, [agentId]).then(({ rows }) => rows[0]!.total);
      const forget = () => void setImmediate(() => totals.get(agentId) === read && totals.delete(agentId));
      read.then(forget, forget);
      totals.set(agentId, read);
      total = read;
    }
    return total;
  };
  const get = async (id: string) => {
    const { rows } = await query<DocumentRow>(pool, `SELECT ${DOCUMENT} FROM knowledge_documents WHERE id = $1`, [id]);
    return rows[0] && toDocument(rows[0]);
  };
  return {
    async add(doc, chunks) {
      // a total read before the commit is not kept past it
      const added = transaction(pool, async (client) => {
        // the unique (agent_id, sha256) decides between two racing uploads: the loser reads the winner's
        const { rows } = await client.query<DocumentRow>(
          `INSERT INTO knowledge_documents (${DOCUMENT}, embedding_model) VALUES ($1, $2, $3, $4, $5, $6, 'ready', 0, $7::jsonb, $8, $9)
           ON CONFLICT (agent_id, sha256) DO NOTHING RETURNING ${DOCUMENT}`,
          [newId('doc'), doc.agentId, doc.filename, doc.bytes, doc.mimeType, doc.sha256, doc.metadata ? JSON.stringify(doc.metadata) : null, Date.now(), doc.embeddingModel ?? null],
        );
        if (!rows[0]) {
          const existing = await client.query<DocumentRow>(`SELECT ${DOCUMENT} FROM knowledge_documents WHERE agent_id = $1 AND sha256 = $2`, [doc.agentId, doc.sha256]);
          return { document: toDocument(existing.rows[0]!), created: false };
        }
        // one transaction however long the batches take to arrive: no other connection sees the
        // document before its last chunk, and a failure or a crash leaves nothing of it. A statement
        // per few hundred chunks, each read from `chunks` as its statement is made: a large document
        // is never one statement of all its texts (several copies of them at once)
        let count = 0;
        for await (const given of chunkBatches(chunks, CHUNKS_PER_STATEMENT)) {
          const batch = Array.from({ length: given.length }, (_, i) => given.at(i)!);
          await client.query(
            `INSERT INTO knowledge_chunks (id, document_id, agent_id, seq, content, terms, embedding)
             SELECT id, $2, $3, $7 + seq - 1, content, terms, embedding
               FROM unnest($1::text[], $4::text[], $5::text[], $6::bytea[]) WITH ORDINALITY AS c(id, content, terms, embedding, seq)`,
            [
              batch.map(() => newId('chunk')),
              rows[0].id,
              doc.agentId,
              batch.map((c) => c.content),
              batch.map((c) => c.terms),
              batch.map((c) => (c.embedding ? bytesOf(c.embedding) : null)),
              count,
            ],
          );
          count += batch.length;
        }
        const done = await client.query<DocumentRow>(`UPDATE knowledge_documents SET chunk_count = $2 WHERE id = $1 RETURNING ${DOCUMENT}`, [rows[0].id, count]);
        return { document: toDocument(done.rows[0]!), created: true };
      });
      return added.finally(() => totals.delete(doc.agentId));
    },
    get,
    async findByHash(agentId, sha256) {
      const { rows } = await query<DocumentRow>(pool, `SELECT ${DOCUMENT} FROM knowledge_documents WHERE agent_id = $1 AND sha256 = $2`, [agentId, sha256]);
      return rows[0] && toDocument(rows[0]);
    },
    async list(agentId) {
      const { rows } =
        agentId === undefined
          ? await query<DocumentRow>(pool, `SELECT ${DOCUMENT} FROM knowledge_documents ORDER BY created_at, seq`)
          : await query<DocumentRow>(pool, `SELECT ${DOCUMENT} FROM knowledge_documents WHERE agent_id = $1 ORDER BY created_at, seq`, [agentId]);
      return rows.map(toDocument);
    },
    async documentCounts() {
      const { rows } = await query<{ agent_id: string; n: number }>(pool, 'SELECT agent_id, COUNT(*)::int AS n FROM knowledge_documents GROUP BY agent_id');
      return new Map(rows.map((r) => [r.agent_id, r.n]));
    },
    async setMetadata(id, metadata) {
      const { rows } = await query<DocumentRow>(pool, `UPDATE knowledge_documents SET metadata = $2::jsonb WHERE id = $1 RETURNING ${DOCUMENT}`, [id, metadata ? JSON.stringify(metadata) : null]);
      return rows[0] && toDocument(rows[0]);
    },
    async delete(id) {
      // chunks go with their document (ON DELETE CASCADE), their index entries with them
      const { rowCount } = await query(pool, 'DELETE FROM knowledge_documents WHERE id = $1', [id]).finally(() => totals.clear());
      return (rowCount ?? 0) > 0;
    },
    // the total's read shared by the turn's runs: an agent without documents makes no query terms
    hasChunks: (agentId) => chunkTotal(agentId).then((total) => total > 0),
    async search(agentId, terms, limit): Promise<KnowledgeCandidates> {
      if (!terms.length) return { total: 0, frequencies: [], candidates: [] };
      const total = await chunkTotal(agentId);
      if (total === 0) return { total, frequencies: terms.map(() => 0), candidates: [] };
      const countLimit = termCountLimit(total);
      // chunks per term, counted no further than the limit (each from the GIN index), in one round trip;
      // terms hold only letters, digits and marks, so none is read as tsquery syntax
      const { rows: counted } = await query<{ n: number }>(
        pool,
        `SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM knowledge_chunks c WHERE c.agent_id = $1 AND c.tsv @@ to_tsquery('simple', t.term) LIMIT $3) l)::int AS n
           FROM unnest($2::text[]) WITH ORDINALITY AS t(term, i) ORDER BY t.i`,
        [agentId, terms.map(operand), countLimit + 1],
      );
      const isFrequent = counted.map((c) => c.n > countLimit);
      const frequencies = counted.map((c, i) => (isFrequent[i] ? frequentTermFrequency(total) : c.n));
      const found: CandidateRow[] = [];
      const others = terms.map((t, i) => ({ t, i })).filter(({ i }) => !isFrequent[i] && frequencies[i]! > 0);
      if (others.length) {
        // the chunks holding the most of them by weight, newest first among equals (as on SQLite)
        const { rows } = await query<CandidateRow>(
          pool,
          `SELECT ${CANDIDATE} FROM knowledge_chunks c JOIN knowledge_documents d ON d.id = c.document_id,
                  to_tsquery('simple', $2) AS q(query)
            WHERE c.agent_id = $1 AND c.tsv @@ q.query
            ORDER BY (SELECT SUM(w.weight) FROM unnest($3::text[], $4::float8[]) AS w(term, weight) WHERE c.tsv @@ to_tsquery('simple', w.term)) DESC, c.seq_no DESC
            LIMIT $5`,
          [
            agentId,
            others.map(({ t }) => operand(t)).join(' | '),
            others.map(({ t }) => operand(t)),
            others.map(({ i }) => termWeight(frequencies[i]!, total)),
            limit,
          ],
        );
        found.push(...rows);
      }
      const frequent = terms.filter((_, i) => isFrequent[i]).map(operand).join(' | ');
      if (frequent) {
        // the first and last chunks holding one by position, and those of the newest small documents
        const { rows } = await query<CandidateRow>(
          pool,
          `(SELECT ${CANDIDATE} FROM knowledge_chunks c JOIN knowledge_documents d ON d.id = c.document_id
             WHERE c.agent_id = $1 AND c.tsv @@ to_tsquery('simple', $2) ORDER BY c.seq_no LIMIT $3)
           UNION ALL
           (SELECT ${CANDIDATE} FROM knowledge_chunks c JOIN knowledge_documents d ON d.id = c.document_id
             WHERE c.agent_id = $1 AND c.tsv @@ to_tsquery('simple', $2) ORDER BY c.seq_no DESC LIMIT $3)
           UNION ALL
           SELECT ${CANDIDATE}
             FROM (SELECT id, filename FROM knowledge_documents WHERE agent_id = $1 AND chunk_count <= $4 ORDER BY created_at DESC, seq DESC LIMIT $5) d
             JOIN knowledge_chunks c ON c.document_id = d.id AND c.tsv @@ to_tsquery('simple', $2)`,
          [agentId, frequent, FREQUENT_TERM_SAMPLE, SMALL_DOCUMENT_CHUNKS, SMALL_DOCUMENTS],
        );
        found.push(...rows);
      }
      const seen = new Set<string>();
      return { total, frequencies, candidates: found.filter((r) => !seen.has(r.id) && seen.add(r.id)).map(toCandidate) };
    },
    async unindexed(limit) {
      const { rows } = await query<{ id: string; content: string }>(pool, 'SELECT id, content FROM knowledge_chunks WHERE terms IS NULL ORDER BY seq_no LIMIT $1', [limit]);
      return rows.map((r) => ({ chunkId: r.id, content: r.content }));
    },
    async reindex(chunks) {
      await query(
        pool,
        'UPDATE knowledge_chunks c SET terms = u.terms FROM unnest($1::text[], $2::text[]) AS u(id, terms) WHERE c.id = u.id',
        [chunks.map((c) => c.chunkId), chunks.map((c) => c.terms)],
      );
    },
    async chunksOf(documentId) {
      const { rows } = await query<{ content: string }>(pool, 'SELECT content FROM knowledge_chunks WHERE document_id = $1 ORDER BY seq', [documentId]);
      return rows.map((r) => r.content);
    },
    async nearest(agentId, model, vector, limit) {
      // what a replica holds is checked against the database on each search: another may have added a document
      const { rows: marks } = await query<{ mark: string }>(
        pool,
        `SELECT COUNT(*) || ':' || COALESCE(MAX(c.seq_no), 0) AS mark FROM knowledge_chunks c JOIN knowledge_documents d ON d.id = c.document_id
          WHERE d.agent_id = $1 AND d.embedding_model = $2 AND c.embedding IS NOT NULL`,
        [agentId, model],
      );
      const key = `${agentId}\u0000${model}`;
      let held = vectors.get(key);
      if (!held || held.mark !== marks[0]!.mark) {
        const { rows } = await query<{ seq_no: string; embedding: Buffer }>(
          pool,
          `SELECT c.seq_no, c.embedding FROM knowledge_chunks c JOIN knowledge_documents d ON d.id = c.document_id
            WHERE d.agent_id = $1 AND d.embedding_model = $2 AND c.embedding IS NOT NULL`,
          [agentId, model],
        );
        held = {
          mark: marks[0]!.mark,
          stored: rows.map((r) => {
            const v = vectorOf(r.embedding);
            return { key: Number(r.seq_no), vector: v, norm: normOf(v) };
          }),
        };
        if (vectors.size > 1000) vectors.clear();
        vectors.set(key, held);
      }
      const found = nearestVectors(held.stored, vector, limit);
      if (!found.length) return [];
      const { rows } = await query<CandidateRow>(
        pool,
        `SELECT ${CANDIDATE} FROM knowledge_chunks c JOIN knowledge_documents d ON d.id = c.document_id WHERE c.seq_no = ANY($1::bigint[])`,
        [found.map((f) => f.key)],
      );
      const bySeq = new Map(rows.map((r) => [Number(r.seq_no), toCandidate(r)]));
      return found.flatMap((f) => {
        const c = bySeq.get(f.key);
        return c ? [{ ...c, similarity: f.similarity }] : [];
      });
    },
  };
}
