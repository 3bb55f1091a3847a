import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { KnowledgeDocument, KnowledgeHit, KnowledgeRepo } from '../port.js';
import { query, transaction } from './pg-pool.js';

interface DocumentRow {
  id: string;
  agent_id: string;
  filename: string;
  bytes: number;
  mime_type: string;
  sha256: string;
  status: 'ready';
  chunk_count: number;
  metadata: Record<string, unknown> | null;
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
  metadata: r.metadata,
  createdAt: r.created_at,
});

const DOCUMENT = 'id, agent_id, filename, bytes, mime_type, sha256, status, chunk_count, metadata, created_at';
const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

/**
 * A term as a tsquery operand: only its letters and digits (so nothing in it is read as tsquery
 * syntax), stemmed by the same `english` configuration that built the chunks' tsvector.
 */
const operand = (term: string) => term.normalize('NFKC').replace(/[^\p{L}\p{N}]+/gu, ' ').trim().split(/\s+/).filter(Boolean).join(' <-> ');

/**
 * The knowledge base in PostgreSQL: documents, chunks with a generated `tsvector` (english
 * stemming) under a GIN index, searched with `@@` and ranked by `ts_rank`, per agent. The same
 * answer shape and the same term rule as the SQLite FTS5 path: a term found in more than half the
 * agent's chunks is dropped unless nothing else matches, and at most the 8 rarest are used.
 */
export function postgresKnowledgeRepo(pool: pg.Pool): KnowledgeRepo {
  const get = async (id: string) => {
    const { rows } = await query<DocumentRow>(pool, `SELECT ${DOCUMENT} FROM knowledge_documents WHERE id = $1`, [id]);
    return rows[0] && toDocument(rows[0]);
  };
  return {
    async add(doc, chunks) {
      return transaction(pool, async (client) => {
        // the unique (agent_id, sha256) decides between two racing uploads: the loser reads the winner's
        const { rows } = await client.query<DocumentRow>(
          `INSERT INTO knowledge_documents (${DOCUMENT}) VALUES ($1, $2, $3, $4, $5, $6, 'ready', $7, $8::jsonb, $9)
           ON CONFLICT (agent_id, sha256) DO NOTHING RETURNING ${DOCUMENT}`,
          [newId('doc'), doc.agentId, doc.filename, doc.bytes, doc.mimeType, doc.sha256, chunks.length, doc.metadata ? JSON.stringify(doc.metadata) : null, Date.now()],
        );
        if (!rows[0]) {
          const existing = await client.query<DocumentRow>(`SELECT ${DOCUMENT} FROM knowledge_documents WHERE agent_id = $1 AND sha256 = $2`, [doc.agentId, doc.sha256]);
          return { document: toDocument(existing.rows[0]!), created: false };
        }
        if (chunks.length) {
          await client.query(
            `INSERT INTO knowledge_chunks (id, document_id, agent_id, seq, content)
             SELECT id, $2, $3, seq - 1, content FROM unnest($1::text[], $4::text[]) WITH ORDINALITY AS c(id, content, seq)`,
            [chunks.map(() => newId('chunk')), rows[0].id, doc.agentId, chunks],
          );
        }
        return { document: toDocument(rows[0]), created: true };
      });
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
    async delete(id) {
      // chunks go with their document (ON DELETE CASCADE), their index entries with them
      const { rowCount } = await query(pool, 'DELETE FROM knowledge_documents WHERE id = $1', [id]);
      return (rowCount ?? 0) > 0;
    },
    async search(agentId, terms, limit): Promise<KnowledgeHit[]> {
      const operands = [...new Set(terms.map(operand).filter(Boolean))];
      if (!operands.length) return [];
      // chunks per term (each answered from the GIN index), and the agent's chunk count, in one round trip
      const { rows: counted } = await query<{ term: string; n: number; total: number }>(
        pool,
        `SELECT t.term,
                (SELECT COUNT(*) FROM knowledge_chunks c WHERE c.agent_id = $1 AND c.tsv @@ to_tsquery('english', t.term))::int AS n,
                (SELECT COALESCE(SUM(chunk_count), 0) FROM knowledge_documents WHERE agent_id = $1)::int AS total
           FROM unnest($2::text[]) AS t(term)`,
        [agentId, operands],
      );
      const total = counted[0]?.total ?? 0;
      if (total === 0) return [];
      const present = counted.filter((t) => t.n > 0).sort((a, b) => a.n - b.n);
      if (!present.length) return [];
      const useful = present.filter((t) => t.n <= total / 2);
      const chosen = (useful.length ? useful : present.slice(0, 1)).slice(0, 8).map((t) => `(${t.term})`);
      const { rows } = await query<{ id: string; document_id: string; filename: string; content: string; rank: number }>(
        pool,
        `SELECT c.id, c.document_id, d.filename, c.content, ts_rank(c.tsv, q.query) AS rank
           FROM knowledge_chunks c
           JOIN knowledge_documents d ON d.id = c.document_id,
                to_tsquery('english', $2) AS q(query)
          WHERE c.agent_id = $1 AND c.tsv @@ q.query
          ORDER BY rank DESC, c.seq_no
          LIMIT $3`,
        [agentId, chosen.join(' | '), limit],
      );
      return rows.map((r) => ({ documentId: r.document_id, filename: r.filename, chunkId: r.id, score: Math.round(r.rank * 10_000) / 10_000, content: r.content }));
    },
  };
}
