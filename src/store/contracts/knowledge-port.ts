/** One file of an agent's knowledge base. */
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
  createdAt: number;
}

export type NewKnowledgeDocument = Pick<KnowledgeDocument, 'agentId' | 'filename' | 'bytes' | 'mimeType' | 'sha256' | 'metadata'> & {
  /** the embeddings model of its chunks' embeddings, when they have one */
  embeddingModel?: string;
};

/** A chunk to store: its text, and the form knowledge/ indexes (its segmented, stemmed terms joined by spaces). */
export interface NewKnowledgeChunk {
  content: string;
  terms: string;
  /** its embedding, when platform.knowledge.embeddings is configured (all of a document's chunks, or none) */
  embedding?: Float32Array;
}

/**
 * Some of a document's chunks as `add` reads them: one at a time, so they need not all be strings
 * at once (an array is one; so is a batch of a parse's packed answer, decoded as it is read).
 */
export interface NewKnowledgeChunks {
  readonly length: number;
  at(index: number): NewKnowledgeChunk | undefined;
}

/**
 * A document's chunks in batches, in order, as a parse makes them: `add` writes each batch as it
 * arrives, so neither the parse nor the store holds the whole document's chunks at once.
 */
export type NewKnowledgeChunkBatches = AsyncIterable<NewKnowledgeChunks>;

/** A chunk a search may rank: it holds at least one of the query's terms. */
export interface KnowledgeCandidate {
  documentId: string;
  filename: string;
  chunkId: string;
  content: string;
  /** its index form, as stored: the ranking counts the query's terms in it */
  terms: string;
}

/** What a search found: the chunks to rank, and the statistics to rank them by. */
export interface KnowledgeCandidates {
  /** the agent's chunks */
  total: number;
  /** the agent's chunks holding each query term, in the order of the terms (frequent ones: frequentTermFrequency) */
  frequencies: number[];
  candidates: KnowledgeCandidate[];
}

/** An older chunk without its index form (stored before an upgrade): knowledge/ indexes it again. */
export interface UnindexedChunk {
  chunkId: string;
  content: string;
}

/** Documents, their chunks and each agent's full-text index of the chunks' index form. */
export interface KnowledgeRepo {
  /**
   * Stores a document and its chunks: all given at once, or batches written as they arrive. The
   * document is seen (got, listed, searched, counted) only once it resolves, with every chunk;
   * when the batches fail (the iterable throws) nothing of it stays (the error is thrown on), nor
   * after a crash while they were written. The same sha256 for the same agent (also two racing
   * uploads) returns the document stored first (`created: false`), its batches left unread.
   */
  add(document: NewKnowledgeDocument, chunks: NewKnowledgeChunks | NewKnowledgeChunkBatches): Promise<{ document: KnowledgeDocument; created: boolean }>;
  get(id: string): Promise<KnowledgeDocument | undefined>;
  findByHash(agentId: string, sha256: string): Promise<KnowledgeDocument | undefined>;
  /** oldest first; every agent's when `agentId` is undefined */
  list(agentId?: string): Promise<KnowledgeDocument[]>;
  /** documents per agent id (agents without documents are absent) */
  documentCounts(): Promise<Map<string, number>>;
  /** replaces a document's metadata (its chunks stay as they are); undefined when there is no such document */
  setMetadata(id: string, metadata: Record<string, unknown> | null): Promise<KnowledgeDocument | undefined>;
  /** removes the document, its chunks and their index entries at once; false when there was none */
  delete(id: string): Promise<boolean>;
  /**
   * The agent's chunks worth ranking for query terms (index terms, already chosen by knowledge/),
   * with each term's chunk count; knowledge/ ranks them. Only chunks holding a term, never another
   * agent's, as the candidate rule (candidate-rule.ts) says. Chunk ids are distinct.
   */
  search(agentId: string, terms: string[], limit: number): Promise<KnowledgeCandidates>;
  /**
   * Whether the agent has any chunk, answered from memory where the adapter can (most agents have
   * no documents, and every turn would search): the search is skipped when false. Optional.
   */
  hasChunks?(agentId: string): boolean | Promise<boolean>;
  /** up to `limit` chunks stored before their index form was (by an older version), oldest first */
  unindexed(limit: number): Promise<UnindexedChunk[]>;
  /** stores and indexes the index form of chunks `unindexed` returned */
  reindex(chunks: { chunkId: string; terms: string }[]): Promise<void>;
  /**
   * The agent's `limit` chunks whose embedding (made by `model`) is nearest the vector by cosine
   * similarity, nearest first; chunks embedded by another model are not compared. Brute force.
   */
  nearest(agentId: string, model: string, vector: Float32Array, limit: number): Promise<(KnowledgeCandidate & { similarity: number })[]>;
  /** a document's chunks, in order (a vector store file's parsed content) */
  chunksOf(documentId: string): Promise<string[]>;
}
