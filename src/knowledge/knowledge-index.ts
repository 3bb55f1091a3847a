import { randomHex } from '../utils/random-hex.js';
import type { KnowledgeDocument, KnowledgeRepo, NewKnowledgeChunk, NewKnowledgeChunks, NewKnowledgeDocument } from '../store/port.js';
import type { Embedder } from './embedder.js';
import { fuseRankings } from './searching/fuse-rankings.js';
import type { KnowledgePassage } from './knowledge-passage.js';
import { pickPassages, scoreCandidates } from './searching/rank-passages.js';
import { queryTerms } from './searching/search-query.js';
import { indexTextOf } from './text-terms.js';

export type { KnowledgeDocument } from '../store/port.js';

const mergeRankings = (lists: KnowledgePassage[][], limit: number) =>
  lists
    .flat()
    .sort((a, b) => b.score - a.score)
    .slice(0, limit);

export const newId = (prefix: string) => `${prefix}_${randomHex(12)}`;

/** candidates asked of the store for each ranking: enough for diversity and duplicates to choose among */
const CANDIDATES = 24;
/** chunks indexed again per transaction by `upgrade`: small, as the event loop serves requests between batches */
const UPGRADE_BATCH = 100;
/** texts per embeddings request while a document is added: its texts are never all copied out at once */
const EMBED_BATCH = 256;

export interface KnowledgeIndexOptions {
  /** platform.knowledge.embeddings: hybrid retrieval when set */
  embedder?: Embedder;
  logger?: { warn(details: object, message: string): void };
}

/**
 * The knowledge base of every agent, over the store's knowledge repo. knowledge/ decides what is
 * indexed (each chunk's segmented, stemmed terms), which words of a question are searched for,
 * and how candidates rank (BM25 with a positive IDF, fused with vector similarity when an
 * embeddings model is configured, one document not crowding out the others, duplicates dropped);
 * the store keeps the chunks and finds the candidates.
 */
export class KnowledgeIndex {
  constructor(
    private readonly repo: KnowledgeRepo,
    private readonly options: KnowledgeIndexOptions = {},
  ) {}

  findByHash(agentId: string, sha256: string): Promise<KnowledgeDocument | undefined> {
    return this.repo.findByHash(agentId, sha256);
  }

  get(id: string): Promise<KnowledgeDocument | undefined> {
    return this.repo.get(id);
  }

  setMetadata(id: string, metadata: Record<string, unknown> | null): Promise<KnowledgeDocument | undefined> {
    return this.repo.setMetadata(id, metadata);
  }

  list(agentId?: string): Promise<KnowledgeDocument[]> {
    return this.repo.list(agentId);
  }

  /** documents per agent id */
  documentCounts(): Promise<Map<string, number>> {
    return this.repo.documentCounts();
  }

  /**
   * Stores a document and its chunks at once (texts, or texts with their index form made off the
   * main thread, read one at a time as the store writes them); a concurrent duplicate returns the
   * one stored first. With an embeddings model the chunks are embedded first, `EMBED_BATCH` texts
   * at a time: a failure there stores nothing (HERALD_EMBEDDINGS_FAILED).
   */
  async add(doc: NewKnowledgeDocument, chunks: (string | NewKnowledgeChunk)[] | NewKnowledgeChunks): Promise<{ document: KnowledgeDocument; created: boolean }> {
    const indexed: NewKnowledgeChunks = {
      length: chunks.length,
      at: (i) => {
        const c = chunks.at(i);
        return typeof c === 'string' ? { content: c, terms: indexTextOf(c) } : c;
      },
    };
    const { embedder } = this.options;
    if (!embedder) return this.repo.add(doc, indexed);
    const vectors: Float32Array[] = [];
    for (let from = 0; from < indexed.length; from += EMBED_BATCH) {
      const texts = Array.from({ length: Math.min(EMBED_BATCH, indexed.length - from) }, (_, i) => indexed.at(from + i)!.content);
      vectors.push(...(await embedder.embed(texts)));
    }
    return this.repo.add({ ...doc, embeddingModel: embedder.ref }, { length: indexed.length, at: (i) => indexed.at(i) && { ...indexed.at(i)!, embedding: vectors[i] } });
  }

  /** a document's chunks, in order */
  chunksOf(documentId: string): Promise<string[]> {
    return this.repo.chunksOf(documentId);
  }

  delete(id: string): Promise<boolean> {
    return this.repo.delete(id);
  }

  /**
   * The agent's best passages for a question, best first; score is higher-is-better. An agent
   * without documents is answered at once (no query terms made, no promise).
   */
  search(agentId: string, question: string, limit = 4): KnowledgePassage[] | Promise<KnowledgePassage[]> {
    const has = this.repo.hasChunks?.(agentId);
    if (has === false) return [];
    if (has === undefined || has === true) return this.ranked(agentId, question, limit);
    return has.then((yes) => (yes ? this.ranked(agentId, question, limit) : []));
  }

  /**
   * The best passages of several owners (an agent's own knowledge and the vector stores it
   * searches), best first: each owner's ranking, merged by score.
   */
  searchAll(owners: string[], question: string, limit = 4): KnowledgePassage[] | Promise<KnowledgePassage[]> {
    if (owners.length === 1) return this.search(owners[0]!, question, limit);
    const found = owners.map((owner) => this.search(owner, question, limit));
    if (found.every(Array.isArray)) return mergeRankings(found as KnowledgePassage[][], limit);
    return Promise.all(found).then((lists) => mergeRankings(lists, limit));
  }

  private async ranked(agentId: string, question: string, limit: number): Promise<KnowledgePassage[]> {
    const terms = queryTerms(question);
    const textual = terms.length ? scoreCandidates(terms, await this.repo.search(agentId, terms, CANDIDATES)) : [];
    const { embedder, logger } = this.options;
    if (!embedder) return pickPassages(textual, limit);
    let vector: Float32Array;
    try {
      [vector] = (await embedder.embed([question])) as [Float32Array];
    } catch (error) {
      // the question is still answered, from full text: the model provider being down is not the user's problem
      logger?.warn({ agentId, code: (error as { code?: string }).code, reason: (error as Error).message }, 'knowledge search: embeddings failed, full-text ranking only');
      return pickPassages(textual, limit);
    }
    const near = await this.repo.nearest(agentId, embedder.ref, vector, CANDIDATES);
    return pickPassages(fuseRankings(textual, near), limit);
  }

  /**
   * Indexes again, in batches, the chunks without their index form: those an older version
   * stored before CJK segmentation and stemming moved here, and every chunk after a migration
   * that changed the index form (Korean syllable pairs, codes whole and in parts). The count done.
   * Run once at start, while the gateway serves; `stopping` ends it between batches (the next
   * start goes on where it stopped).
   */
  async upgrade(stopping: () => boolean = () => false): Promise<number> {
    let done = 0;
    while (!stopping()) {
      const batch = await this.repo.unindexed(UPGRADE_BATCH);
      if (!batch.length) return done;
      await this.repo.reindex(batch.map((c) => ({ chunkId: c.chunkId, terms: indexTextOf(c.content) })));
      done += batch.length;
      await new Promise((resolve) => setImmediate(resolve));
    }
    return done;
  }
}
