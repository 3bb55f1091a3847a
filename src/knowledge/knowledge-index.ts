import { randomHex } from '../utils/random-hex.js';
import type { KnowledgeDocument, KnowledgeRepo, NewKnowledgeChunk, NewKnowledgeChunkBatches, NewKnowledgeChunks, NewKnowledgeDocument } from '../store/port.js';
import type { Embedder } from './embedder.js';
import { IngestsInFlight } from './ingests-in-flight.js';
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
  logger?: { warn(details: object, message: string): void; debug?(details: object, message: string): void };
}

/**
 * The knowledge base of every agent, over the store's knowledge repo. knowledge/ decides what is
 * indexed (each chunk's segmented, stemmed terms), which words of a question are searched for,
 * and how candidates rank (BM25 with a positive IDF, fused with vector similarity when an
 * embeddings model is configured, one document not crowding out the others, duplicates dropped);
 * the store keeps the chunks and finds the candidates.
 */
export class KnowledgeIndex {
  /** the uploads of this process being read and stored: one of the same bytes for the same owner waits for it */
  private readonly ingests = new IngestsInFlight();

  constructor(
    private readonly repo: KnowledgeRepo,
    private readonly options: KnowledgeIndexOptions = {},
  ) {}

  /**
   * Runs the ingest of bytes (`sha256`) for an owner alone in this process: one of the same bytes
   * for the same owner under way is waited for first (see IngestsInFlight).
   */
  ingestAlone<T>(owner: string, sha256: string, work: () => Promise<T>): Promise<T> {
    return this.ingests.alone(owner, sha256, work, () => this.options.logger?.debug?.({ agentId: owner }, 'upload waits for the same file being read and stored'));
  }

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
   * Stores a document and its chunks: texts, or texts with their index form made off the main
   * thread, given at once or in batches as a parse makes them (each chunk read as the store writes
   * it). A concurrent duplicate returns the one stored first. With an embeddings model each batch
   * is embedded as it comes, `EMBED_BATCH` texts a request, so no more than a batch's vectors are
   * held: a failure there stores nothing of the document (HERALD_EMBEDDINGS_FAILED).
   */
  async add(doc: NewKnowledgeDocument, chunks: (string | NewKnowledgeChunk)[] | NewKnowledgeChunks | NewKnowledgeChunkBatches): Promise<{ document: KnowledgeDocument; created: boolean }> {
    const { embedder } = this.options;
    const batches = Symbol.asyncIterator in chunks ? (chunks as NewKnowledgeChunkBatches) : undefined;
    const given = chunks as GivenChunks;
    if (!batches && !embedder) return this.repo.add(doc, indexedChunks(given));
    if (!embedder) return this.repo.add(doc, mapBatches(batches!, indexedChunks));
    // texts given at once are embedded (and written) EMBED_BATCH at a time too
    const source = batches ?? slices(given, EMBED_BATCH);
    return this.repo.add({ ...doc, embeddingModel: embedder.ref }, mapBatches(source, (batch) => embedded(embedder, indexedChunks(batch))));
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

/** texts, chunks with their index form, or both, read one at a time (an array is one) */
interface GivenChunks {
  readonly length: number;
  at(index: number): string | NewKnowledgeChunk | undefined;
}

/** chunks with their index form: made here for texts, as given for chunks from a parse */
function indexedChunks(chunks: GivenChunks): NewKnowledgeChunks {
  return {
    length: chunks.length,
    at: (i) => {
      const c = chunks.at(i);
      return typeof c === 'string' ? { content: c, terms: indexTextOf(c) } : c;
    },
  };
}

/** the chunks with their embeddings, asked EMBED_BATCH texts at a time */
async function embedded(embedder: Embedder, chunks: NewKnowledgeChunks): Promise<NewKnowledgeChunks> {
  const vectors: Float32Array[] = [];
  for (let from = 0; from < chunks.length; from += EMBED_BATCH) {
    const texts = Array.from({ length: Math.min(EMBED_BATCH, chunks.length - from) }, (_, i) => chunks.at(from + i)!.content);
    vectors.push(...(await embedder.embed(texts)));
  }
  return { length: chunks.length, at: (i) => chunks.at(i) && { ...chunks.at(i)!, embedding: vectors[i] } };
}

async function* mapBatches<T>(batches: AsyncIterable<T>, map: (batch: T) => NewKnowledgeChunks | Promise<NewKnowledgeChunks>): NewKnowledgeChunkBatches {
  for await (const batch of batches) yield await map(batch);
}

/** chunks given at once, as batches of `size` */
async function* slices(chunks: GivenChunks, size: number): AsyncGenerator<GivenChunks> {
  for (let from = 0; from < chunks.length; from += size) {
    const length = Math.min(size, chunks.length - from);
    yield { length, at: (i) => (i >= 0 && i < length ? chunks.at(from + i) : undefined) };
  }
}
